/**
 * @module test/repository/restic/resticApi
 * A `restic` storage through a served daemon's API (the real process): the run listed in the spec's shape,
 * downloaded as a tar whose length the Content-Length announced, verified and restored (files into a
 * restore root, the SQLite dump into a `restore.databases` target) by the same tasks as archives, its
 * config shown without the password.
 */
import { expect } from 'chai'
import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { forEachTarEntry } from '../../../src/tar/forEachTarEntry.js'
import type { DaemonProcess } from '../../api/support/daemonProcess.js'
import { makeTree, tempDir } from '../../engine/helpers.js'
import { requireRestic } from '../../support/requireRestic.js'
import { execSqlite, openSqlite } from '../../support/sqliteDb.js'
import { ended, restoreServer, serveConfig, type TaskBody, type TaskClient } from '../../tasks/support.js'
import { treeOf } from './support/treeOf.js'
const password = 'restic-api-password'
const resticPassword = 'restic api repository pass'

describe('restic storage through the API (served daemon: list, download, verify, restore)', function () {
  this.timeout(240_000)
  let tmp: { dir: string; remove(): Promise<void> }
  let daemon: DaemonProcess | undefined
  let api: TaskClient
  let name = ''
  before(async () => {
    await requireRestic()
    tmp = await tempDir('bd-restic-api-')
    await makeTree(join(tmp.dir, 'site'))
    execSqlite(join(tmp.dir, 'app.db'), "CREATE TABLE items (name TEXT); INSERT INTO items VALUES ('alpha'), ('beta')")
    mkdirSync(join(tmp.dir, 'root'))
    const config = {
      dataDir: join(tmp.dir, 'data'),
      server: await restoreServer(password),
      restore: { roots: [join(tmp.dir, 'root')], databases: { copy: { type: 'sqlite', path: join(tmp.dir, 'copy.db') } } },
      jobs: [
        {
          name: 'site',
          sources: [
            { type: 'local', name: 'files', path: join(tmp.dir, 'site') },
            { type: 'sqlite', name: 'db', path: join(tmp.dir, 'app.db') },
          ],
          storages: [{ type: 'restic', name: 'dedup', repository: join(tmp.dir, 'repo'), password: resticPassword }],
        },
      ],
    }
    ;({ daemon, api } = await serveConfig(tmp.dir, config, password))
    name = await api.backup('site')
  })
  after(async () => {
    if (daemon) expect(await daemon.stop(), daemon.output()).to.equal(0)
    rmSync(tmp.dir, { recursive: true, force: true })
  })

  const start = async (action: 'verify' | 'restore', body?: unknown) => {
    const res = await api.post(`/jobs/site/backups/${encodeURIComponent(name)}/${action}`, body)
    expect(res.status, await res.clone().text()).to.equal(202)
    return api.waitTask('site', ended)
  }

  it('lists the run and downloads it as one tar of Content-Length bytes, with <source>/ entries', async () => {
    const { backups } = (await (await api.get('/jobs/site/backups')).json()) as { backups: Record<string, unknown>[] }
    expect(backups).to.have.length(1)
    expect(backups[0]).to.include({ name, storageType: 'restic', isSplit: false, fullDownloadSupported: true, partsCount: 1 })
    const res = await api.get(`/jobs/site/backups/${encodeURIComponent(name)}/download`)
    expect(res.status).to.equal(200)
    const bytes = Buffer.from(await res.arrayBuffer())
    expect(Number(res.headers.get('content-length')))
      .to.equal(bytes.length)
      .and.equal(backups[0]!.size)
    const names: string[] = []
    await forEachTarEntry(Readable.from([bytes]), async (header) => void names.push(header.name))
    expect(names).to.include.members(['files/readme.txt', 'files/docs/random.bin', 'db/app.sqlite'])
    const config = await (await api.get('/jobs/site/config')).text()
    expect(config).to.not.include(resticPassword)
  })

  it("counts the folder restic read as the run's reads (its history, the next run's progress total)", async () => {
    const { runs } = (await (await api.get('/jobs/site/history?limit=1')).json()) as { runs: { bytesRead: number; filesRead?: number }[] }
    // The folder's 13000 + 300000 bytes and 4 files (5 with the symlink restic counts), read by restic, plus the SQLite dump read by the daemon.
    expect(runs[0]!.bytesRead).to.be.at.least(313_000)
    expect(runs[0]!.filesRead).to.be.at.least(5)
  })

  it('verifies with progress to the total, and restores the files and the database through the tasks', async () => {
    const verified: TaskBody = await start('verify')
    expect(verified.status, verified.error).to.equal('success')
    expect(verified.progress!.bytesRead).to.equal(verified.progress!.totalBytes)
    const log = ((await (await api.get('/jobs/site/logs?tail=50')).json()) as { logs: string[] }).logs.join('\n')
    expect(log).to.match(/\[verify\] storage "dedup": \S+: OK \(1 part\(s\), \d+ bytes; restic check passed/)

    const restored = await start('restore', { target: { kind: 'files', path: join(tmp.dir, 'root', 'back') } })
    expect(restored.status, restored.error).to.equal('success')
    expect(await treeOf(join(tmp.dir, 'root', 'back', 'files'))).to.deep.equal(await treeOf(join(tmp.dir, 'site')))

    const intoDb = await start('restore', { target: { kind: 'database', source: 'db', database: 'copy' } })
    expect(intoDb.status, intoDb.error).to.equal('success')
    const copy = openSqlite(join(tmp.dir, 'copy.db'))
    expect(copy.prepare('SELECT group_concat(name) AS names FROM items').get()).to.deep.equal({ names: 'alpha,beta' })
    copy.close()
  })
})
