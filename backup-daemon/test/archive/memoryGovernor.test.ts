import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { expect } from 'chai'

const governorModule = fileURLToPath(new URL('../../src/archive/memoryGovernor.ts', import.meta.url))

/** V8's `--trace-gc` lines of a child that passes `mib` MiB through a fresh governor, and nothing else. */
async function traceGovernor(mib: number): Promise<string[]> {
  const script = `
    const { memoryGovernor } = await import(${JSON.stringify(governorModule)})
    const account = memoryGovernor()
    for (let i = 0; i < ${mib * 4}; i++) account(256 * 1024)
    console.log('GOVERNED')`
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--trace-gc', '--input-type=module', '-e', script], { timeout: 30_000 })
  const lines = stdout.split('\n')
  expect(lines).to.include('GOVERNED')
  return lines.filter((line) => / ms: (Scavenge|Mark-Compact|Mark-Sweep)/.test(line))
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
})
