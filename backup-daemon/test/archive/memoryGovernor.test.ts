import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { expect } from 'chai'

const governorModule = fileURLToPath(new URL('../../src/archive/memoryGovernor.ts', import.meta.url))

/** V8's `--trace-gc` lines of a child that passes `mib` MiB through a fresh governor, and nothing else. */
async function traceGovernor(mib: number): Promise<string[]> {
  return (await traceScript(`for (let i = 0; i < ${mib * 4}; i++) account(256 * 1024)`)).collections
}

/** Runs `body` in a child with `account` (a fresh governor) and `v8` in scope; its collections and printed lines. */
async function traceScript(body: string): Promise<{ collections: string[]; lines: string[] }> {
  const script = `
    const { memoryGovernor } = await import(${JSON.stringify(governorModule)})
    const v8 = await import('node:v8')
    const account = memoryGovernor()
    ${body}
    console.log('GOVERNED')`
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--trace-gc', '--input-type=module', '-e', script], {
    timeout: 30_000,
    maxBuffer: 16 << 20,
  })
  const lines = stdout.split('\n')
  expect(lines).to.include('GOVERNED')
  return { collections: lines.filter((line) => / ms: (Scavenge|Mark-Compact|Mark-Sweep)/.test(line)), lines }
}

describe('memoryGovernor', function () {
  this.timeout(40_000)

  it('asks for one young-generation collection per 4 MiB and never a full one, on this Node', async () => {
    const traced = await traceGovernor(64)
    // "testing" is V8's reason for a collection asked through gc(); Node 24 reads { type: 'major' } as a
    // full mark-compact (15 s instead of 4 s for 200k tiny files), Node 20 as a scavenge.
    const asked = traced.filter((line) => line.includes('testing'))
    expect(asked.filter((line) => line.includes('Scavenge'))).to.have.length(16)
    expect(asked.filter((line) => line.includes('Mark-'))).to.deep.equal([])
  })

  it('asks for a full collection while the external memory is over 24 MiB, which frees buffers that died old', async () => {
    // 32 MiB of ArrayBuffers, live through the first collection (so old), then dropped: only a full
    // collection frees them (Node 24's V8 otherwise let such buffers reach ~43 MiB in a tar.gz run).
    const { collections, lines } = await traceScript(`
      let held = Array.from({ length: 32 }, () => new Uint8Array(1 << 20).fill(7))
      for (let i = 0; i < 16; i++) account(256 * 1024)
      held = undefined
      for (let i = 0; i < 16; i++) account(256 * 1024)
      // V8 sweeps dead ArrayBuffers on a background thread after the collection, and Node 20's V8 takes
      // their bytes off its count only at the collection after that: one more full one there.
      await new Promise((resolve) => setTimeout(resolve, 200))
      for (let i = 0; i < 32; i++) account(256 * 1024)
      console.log('EXTERNAL', v8.getHeapStatistics().external_memory)`)
    const asked = collections.filter((line) => line.includes('testing'))
    expect(asked.filter((line) => line.includes('Mark-')).length, collections.join('\n')).to.be.at.least(2)
    // Under the ceiling again: the last 4 MiB asked for a scavenge.
    expect(asked.at(-1), collections.join('\n')).to.match(/ ms: Scavenge/)
    const external = Number(lines.find((line) => line.startsWith('EXTERNAL '))?.split(' ')[1])
    expect(external).to.be.below(24 * 1024 * 1024)
  })
})
