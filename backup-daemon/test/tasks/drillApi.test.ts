/**
 * Restore drills from the API (a real daemon): `POST /jobs/{name}/drill` starts a task of kind `drill`
 * (202), which `tasks/current` shows and the run history records; a second one, or a backup, while it runs
 * is refused (409); a cancel ends it `cancelled` and leaves no scratch folder; an unknown storage is a 400.
 * `GET /metrics` carries the last successful drill's time and the failed drills per job; a webhook with
 * `on: [failure, drill-success]` hears both (kind `drill`), one with `on: [success]` neither.
 */
import { expect } from 'chai'
import { createRequire } from 'node:module'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { DaemonProcess } from '../api/support/daemonProcess.js'
import { ended, restoreServer, serveConfig, writeRandomTree, type TaskClient } from './support.js'

const password = 'drill-api-password'
const Database = createRequire(import.meta.url)('libsql') as new (path: string) => { exec(sql: string): void; close(): void }

const waitUntil = async (check: () => boolean) => {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 20))
  expect(check(), 'waited 10 s').to.equal(true)
}

describe('restore drills from the API (real daemon)', function () {
  this.timeout(240_000)
  let dir: string
  let daemon: DaemonProcess | undefined
  let api: TaskClient
  let hooks: Server
  const heard: { path: string; body: { kind?: string; job: string; status: string; error: string; snapshot: unknown } }[] = []
  const scratch = () => {
    try {
      return readdirSync(join(dir, 'data', 'drills'))
    } catch {
      return []
    }
  }

  before(async () => {
    hooks = createServer((req, res) => {
      let body = ''
      req.on('data', (chunk: Buffer) => (body += chunk.toString()))
      req.on('end', () => {
        heard.push({ path: req.url!, body: JSON.parse(body) as (typeof heard)[number]['body'] })
        res.end('ok')
      })
    })
    await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve))
    const hookUrl = (path: string) => `http://127.0.0.1:${(hooks.address() as AddressInfo).port}${path}`
    dir = mkdtempSync(join(tmpdir(), 'bd-drill-api-'))
    writeRandomTree(join(dir, 'small'), 2, 5)
    writeRandomTree(join(dir, 'large'), 40, 50)
    const db = new Database(join(dir, 'app.db'))
    db.exec('CREATE TABLE posts (id INTEGER PRIMARY KEY, title TEXT)')
    for (let i = 0; i < 12; i++) db.exec(`INSERT INTO posts (title) VALUES ('p${i}')`)
    db.close()
    const config = {
      dataDir: join(dir, 'data'),
      server: await restoreServer(password),
      jobs: [
        {
          name: 'site',
          compression: 'tar.gz',
          sources: [
            { type: 'local', name: 'files', path: join(dir, 'small') },
            { type: 'sqlite', name: 'db', path: join(dir, 'app.db') },
          ],
          storages: [
            { type: 'local', name: 'one', path: join(dir, 'one') },
            { type: 'local', name: 'two', path: join(dir, 'two') },
          ],
          notify: [
            { type: 'webhook', url: hookUrl('/drills'), on: ['failure', 'drill-success'] },
            { type: 'webhook', url: hookUrl('/backups'), on: ['success'] },
          ],
        },
        {
          name: 'large',
          compression: 'tar',
          sources: [{ type: 'local', name: 'files', path: join(dir, 'large') }],
          storages: [{ type: 'local', name: 'disk', path: join(dir, 'disk') }],
        },
      ],
    }
    ;({ daemon, api } = await serveConfig(dir, config, password))
  })
  after(async () => {
    hooks.close()
    await daemon?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('drills the newest snapshot on every storage: a drill task, shown by tasks/current, recorded in the history', async () => {
    const snapshot = await api.backup('site')
    const res = await api.post('/jobs/site/drill')
    expect(res.status, await res.clone().text()).to.equal(202)
    const { task } = (await res.json()) as { task: { kind: string; snapshot: string; status: string } }
    expect(task).to.include({ kind: 'drill', snapshot, status: 'running' })
    const done = await api.waitTask('site', ended)
    expect(done.status, done.error).to.equal('success')
    expect(done.summary).to.match(
      /^restore proven on 2 storage\(s\): storage "one": .* match the record's sizes and crc32; source "db": db\/app\.sqlite: integrity_check ok, 1 table\(s\)/,
    )
    expect(done.summary).to.include('storage "two"')
    expect(done.progress?.kind).to.equal('drill')
    const history = (await (await api.get('/jobs/site/history?limit=5')).json()) as { runs: { kind: string; result: string; snapshot?: string }[] }
    expect(history.runs[0]).to.include({ kind: 'drill', result: 'success', snapshot })
    expect(scratch()).to.deep.equal([])

    const one = await api.post('/jobs/site/drill?storage=two')
    expect(one.status).to.equal(202)
    const second = await api.waitTask('site', ended)
    expect(second.summary).to.match(/^restore proven on 1 storage\(s\): storage "two"/)
    const unknown = await api.post('/jobs/site/drill?storage=nope')
    expect(unknown.status).to.equal(400)
    expect(((await unknown.json()) as { detail: string }).detail).to.include('has no storage "nope"')
  })

  it('GET /metrics: the last successful drill and the failed ones, per job', async () => {
    const metric = async (name: string) => {
      const text = await (await fetch(`${daemon!.url}/metrics`, { headers: { cookie: await api.cookie() } })).text()
      return Number(new RegExp(`^${name}\\{job="site"\\} (\\S+)$`, 'm').exec(text)?.[1])
    }
    const proven = await metric('backup_daemon_drill_last_success_timestamp_seconds')
    expect(proven).to.be.within(Date.now() / 1000 - 600, Date.now() / 1000 + 1)
    expect(await metric('backup_daemon_drill_failures_total')).to.equal(0)
    // A byte flipped in storage "two"'s copy: the drill fails, counted; the last success stays.
    const folder = join(dir, 'two', 'site')
    const name = readdirSync(folder)
      .filter((n) => n.endsWith('.tar.gz'))
      .sort()
      .at(-1)!
    const bytes = readFileSync(join(folder, name))
    bytes[200]! ^= 0x01
    writeFileSync(join(folder, name), bytes)
    expect((await api.post('/jobs/site/drill')).status).to.equal(202)
    const failed = await api.waitTask('site', ended)
    expect(failed.status).to.equal('failed')
    expect(failed.error).to.include(`storage "two": ${name}: damaged, not restored`)
    expect(await metric('backup_daemon_drill_failures_total')).to.equal(1)
    expect(await metric('backup_daemon_drill_last_success_timestamp_seconds')).to.equal(proven)

    // The notifiers: drills reach `/drills` only (success by `drill-success`, the failure by `failure`); backups reach `/backups`.
    const drillReports = () => heard.filter((h) => h.body.kind === 'drill')
    await waitUntil(() => drillReports().some((h) => h.body.status === 'failure'))
    expect(drillReports().every((h) => h.path === '/drills')).to.equal(true)
    expect(drillReports().map((h) => h.body.status)).to.deep.equal(['success', 'success', 'failure'])
    const failure = drillReports().at(-1)!.body
    expect(failure).to.include({ job: 'site', kind: 'drill', snapshot: null })
    expect(failure.error).to.include(`storage "two": ${name}: damaged, not restored`)
    expect(heard.filter((h) => h.path === '/backups').map((h) => h.body.kind)).to.deep.equal(['backup'])
  })

  it('never beside another task or a backup of the job (409); a cancel ends it cancelled and leaves no scratch folder', async () => {
    await api.backup('large')
    const first = await api.post('/jobs/large/drill')
    expect(first.status).to.equal(202)
    const again = await api.post('/jobs/large/drill')
    expect(again.status).to.equal(409)
    const run = await api.post('/jobs/large/run')
    expect(run.status).to.equal(409)
    const cancel = await api.post('/jobs/large/tasks/current/cancel')
    expect(cancel.status).to.equal(200)
    const done = await api.waitTask('large', ended)
    expect(done.status).to.equal('cancelled')
    expect(scratch()).to.deep.equal([])
  })
})
