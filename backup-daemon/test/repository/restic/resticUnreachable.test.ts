/**
 * Issue 37 "damage and absence are visible": a `restic` repository that cannot be reached is down, never
 * empty. A job with a local storage and a `rest:` repository nobody serves: its run fails naming restic, the
 * local copy is committed. The API lists the local copy (200) and names the restic storage in `storagesDown`
 * with restic's reason, `/status` lists it down, a drill of that storage fails saying it cannot be read (not
 * "snapshot newest not found"), `snapshots --storage` exits 1 naming it. A repository that does not exist
 * yet still lists as empty, and one that answered once (`rclone serve restic`) keeps its known runs listed
 * when it stops, while reading them fails naming the storage.
 */
import { expect } from 'chai'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { DaemonProcess } from '../../api/support/daemonProcess.js'
import { makeTree, tempDir } from '../../engine/helpers.js'
import { freePort } from '../../support/freePort.js'
import { requireRestic } from '../../support/requireRestic.js'
import { runCli } from '../../support/runCli.js'
import { ended, restoreServer, serveConfig, type TaskClient } from '../../tasks/support.js'

const password = 'restic-unreachable-password'

async function serveRestic(dir: string, port: number): Promise<ChildProcess> {
  const child = spawn('rclone', ['serve', 'restic', dir, '--addr', `127.0.0.1:${port}`], { stdio: 'ignore' })
  child.once('error', () => {})
  for (let i = 0; i < 100; i++) {
    const up = await fetch(`http://127.0.0.1:${port}/`).then(
      () => true,
      () => false,
    )
    if (up) return child
    if (child.exitCode !== null) break
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error('rclone serve restic did not start (apt-get install rclone)')
}

describe('restic: a repository that cannot be reached is down, never empty', function () {
  this.timeout(180_000)
  let tmp: { dir: string; remove(): Promise<void> }
  let daemon: DaemonProcess | undefined
  let api: TaskClient
  let rest: ChildProcess | undefined
  let configFile = ''

  before(async () => {
    await requireRestic()
    tmp = await tempDir('bd-restic-down-')
    await makeTree(join(tmp.dir, 'site'))
    mkdirSync(join(tmp.dir, 'rest'))
    const port = await freePort()
    rest = await serveRestic(join(tmp.dir, 'rest'), port)
    const config = {
      dataDir: join(tmp.dir, 'data'),
      server: await restoreServer(password),
      jobs: [
        {
          name: 'site',
          sources: [{ type: 'local', name: 'files', path: join(tmp.dir, 'site') }],
          storages: [
            { type: 'local', name: 'disk', path: join(tmp.dir, 'store') },
            { type: 'restic', name: 'remote', repository: `rest:http://127.0.0.1:${await freePort()}/`, password: 'restic down pass' },
          ],
        },
        {
          name: 'once',
          sources: [{ type: 'local', name: 'files', path: join(tmp.dir, 'site') }],
          storages: [{ type: 'restic', name: 'served', repository: `rest:http://127.0.0.1:${port}/`, password: 'restic down pass' }],
        },
        {
          name: 'fresh',
          sources: [{ type: 'local', name: 'files', path: join(tmp.dir, 'site') }],
          storages: [{ type: 'restic', name: 'new', repository: join(tmp.dir, 'not-yet'), password: 'restic down pass' }],
        },
      ],
    }
    // The local copy first, by a run that writes to the disk storage only (the restic one never answers).
    const diskOnly = join(tmp.dir, 'disk-only.json')
    writeFileSync(diskOnly, JSON.stringify({ ...config, server: { enabled: false }, jobs: [{ ...config.jobs[0], storages: [config.jobs[0]!.storages[0]] }] }))
    const run = await runCli(['run', 'site', '--config', diskOnly], { cwd: tmp.dir })
    expect(run.code, run.out).to.equal(0)
    ;({ daemon, api, configFile } = await serveConfig(tmp.dir, config, password))
    await api.backup('once')
    rest.kill('SIGTERM')
    await new Promise((resolve) => rest!.once('close', resolve))
    rest = undefined
  })
  after(async () => {
    rest?.kill('SIGKILL')
    if (daemon) expect(await daemon.stop(), daemon.output()).to.equal(0)
    rmSync(tmp.dir, { recursive: true, force: true })
  })

  it('lists what the other storage holds and names the restic storage as down, with the reason; /status too', async () => {
    const res = await api.get('/jobs/site/backups')
    expect(res.status).to.equal(200)
    const body = (await res.json()) as { backups: { storages: string[] }[]; storagesDown?: { storage: string; error: string }[] }
    expect(body.backups).to.have.length(1)
    expect(body.backups[0]!.storages).to.deep.equal(['disk'])
    expect(body.storagesDown?.map((d) => d.storage)).to.deep.equal(['remote'])
    expect(body.storagesDown![0]!.error).to.match(/connection refused/)
    const status = (await (await api.get('/status')).json()) as { storagesDown?: { job: string; storage: string }[] }
    expect(status.storagesDown).to.deep.include({ ...status.storagesDown!.find((d) => d.storage === 'remote'), job: 'site', storage: 'remote' })
    // A repository that does not exist yet is a storage with no snapshots, not a storage that is down.
    const fresh = (await (await api.get('/jobs/fresh/backups')).json()) as { backups: unknown[]; storagesDown?: unknown[] }
    expect(fresh).to.deep.equal({ backups: [], job: 'fresh' })
  })

  it('a drill of the storage fails saying it cannot be read; the CLI exits 1 naming it', async () => {
    const started = await api.post('/jobs/site/drill?storage=remote')
    expect(started.status, await started.clone().text()).to.equal(202)
    const task = await api.waitTask('site', ended)
    expect(task.status).to.equal('failed')
    expect(task.error).to.match(/storage "remote": cannot be read: .*connection refused/)
    // A repository that answered before: its runs stay listed (the daemon's own record of them), and a read fails naming it.
    const once = (await (await api.get('/jobs/once/backups')).json()) as { backups: { name: string }[] }
    expect(once.backups).to.have.length(1)
    expect((await api.post(`/jobs/once/backups/${encodeURIComponent(once.backups[0]!.name)}/verify`)).status).to.equal(202)
    const verify = await api.waitTask('once', ended)
    expect(verify.status).to.equal('failed')
    expect(verify.error).to.match(/storage "served".*connection refused/)
    const listed = await runCli(['snapshots', 'site', '--config', configFile, '--storage', 'remote'], { cwd: tmp.dir })
    expect(listed.code, listed.out).to.equal(1)
    expect(listed.out).to.match(/cannot list job "site" on storage "remote"/)
  })
})
