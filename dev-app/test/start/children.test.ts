/**
 * `start/children.ts`: a child's done line is found even when split between two output chunks, an exit 0
 * without it is a `SilentExitError`, and `retrySilentExits` runs the step again only for those (real
 * Node child processes; the silent one stands for Payload's CLI exiting 0 having done nothing).
 */
import { expect } from 'chai'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { importMapDone } from '../../src/start/payloadCliDone.js'
import { retrySilentExits, runChild, SilentExitError } from '../../src/start/children.js'

const node = process.execPath
const quiet = { quiet: true }

describe('dev-app start: child done lines', function () {
  this.timeout(30_000)
  let dir: string
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'dev-app-children-'))))
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  it('finds the done line when it is split between two writes', async () => {
    const script = "process.stdout.write('Writing import'); setTimeout(() => process.stdout.write(' map to /x/importMap.js\\n'), 100)"
    await runChild('split', node, ['-e', script], { ...quiet, doneLine: importMapDone })
    await runChild('skip', node, ['-e', "console.log('No new imports found, skipping writing import map')"], { ...quiet, doneLine: importMapDone })
  })

  it('an exit 0 without the done line is a SilentExitError; a failure keeps its exit code', async () => {
    const silent = await runChild('silent', node, ['-e', "console.log('Generating import map')"], { ...quiet, doneLine: importMapDone }).catch(
      (e: unknown) => e,
    )
    expect(silent).to.be.instanceOf(SilentExitError)
    expect((silent as Error).message).to.match(/exited without finishing/)
    const failed = await runChild('failed', node, ['-e', 'process.exit(3)'], { ...quiet, doneLine: importMapDone }).catch((e: unknown) => e)
    expect(failed).not.to.be.instanceOf(SilentExitError)
    expect((failed as Error).message).to.match(/exit code 3/)
  })

  it('retrySilentExits runs the step again after a silent exit, and stops at the first real failure', async () => {
    // Silent on its first two runs, then prints the done line: counted in a file.
    const counter = path.join(dir, 'runs')
    writeFileSync(counter, '0')
    const script = `const fs = require('node:fs'); const n = Number(fs.readFileSync(${JSON.stringify(counter)}, 'utf8')) + 1;
      fs.writeFileSync(${JSON.stringify(counter)}, String(n)); if (n >= 3) console.log('Writing import map to /x')`
    const retries: string[] = []
    const step = () => runChild('flaky', node, ['-e', script], { ...quiet, doneLine: importMapDone })
    expect(await retrySilentExits(step, 3, (err) => retries.push(err.message))).to.equal(true)
    expect(readFileSync(counter, 'utf8')).to.equal('3')
    expect(retries).to.have.length(2)

    writeFileSync(counter, '-10')
    expect(await retrySilentExits(step, 2, () => {})).to.equal(false)
    expect(readFileSync(counter, 'utf8')).to.equal('-8')

    let runs = 0
    const failing = () => {
      runs++
      return runChild('failing', node, ['-e', 'process.exit(2)'], quiet)
    }
    const error = await retrySilentExits(failing, 3, () => {}).catch((e: unknown) => e)
    expect((error as Error).message).to.match(/exit code 2/)
    expect(runs).to.equal(1)
  })
})
