/**
 * The drill sweep stops the temporary servers a killed drill left (`sources/support/scratchServer`): a
 * noted server's process is killed before the folder is removed, but only when its command line
 * names the folder (a pid reused by another process since is left alone).
 */
import { expect } from 'chai'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdir, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { drillsFolder, sweepDrillScratch } from '../../src/restore/drill/drillScratch.js'
import { recordScratchServer } from '../../src/sources/support/scratchServer.js'
import { tempDir, waitFor } from '../engine/helpers.js'
import { processAlive } from '../../src/sources/support/processAlive.js'

describe('restore/drill/drillScratch: temporary servers left by a killed drill', function () {
  this.timeout(20_000)
  let tmp: Awaited<ReturnType<typeof tempDir>>
  const children: ChildProcess[] = []
  beforeEach(async () => (tmp = await tempDir('bd-drill-servers-')))
  afterEach(async () => {
    for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await tmp.remove()
  })

  /** A long-running process whose command line holds `arg`. */
  const sleeper = (arg: string) => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)', '--', arg], { stdio: 'ignore' })
    children.push(child)
    return child
  }

  it('kills the process a pid file names when its command line names the folder, and leaves any other', async () => {
    const stale = join(drillsFolder(tmp.dir), 'drill-99999999-0123456789ab')
    const serverDir = join(stale, 'checks', 'db', 'server')
    const otherDir = join(stale, 'checks', 'cache', 'server')
    await mkdir(serverDir, { recursive: true })
    await mkdir(otherDir, { recursive: true })
    const server = sleeper(`--datadir=${join(serverDir, 'data')}`)
    const unrelated = sleeper('--something-else')
    await recordScratchServer(serverDir, server)
    // A note in another folder whose pid is now a process of the same executable without that folder on its command line.
    await recordScratchServer(otherDir, unrelated)
    await waitFor(() => processAlive(server.pid!) && processAlive(unrelated.pid!), 5000, 'the processes')
    const swept = await sweepDrillScratch(tmp.dir)
    expect(swept).to.have.length(1)
    expect(swept[0]).to.equal(`drill-99999999-0123456789ab (stopped node (pid ${server.pid}) left running by a killed drill)`)
    await waitFor(() => server.exitCode !== null || server.signalCode !== null, 5000, 'the server to exit')
    expect(server.signalCode).to.equal('SIGKILL')
    expect(processAlive(unrelated.pid!)).to.equal(true)
    expect(await readdir(drillsFolder(tmp.dir))).to.deep.equal([])
  })
})
