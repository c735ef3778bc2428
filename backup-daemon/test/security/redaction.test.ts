/**
 * Issue 28 items 5 and 6: one redaction of credentials in strings, against a real daemon process.
 * - 5: a webhook and a healthchecks notifier whose URLs carry `user:pass@` fail (port 9, which fetch
 *   refuses); the job log, the system log (files) and `GET /logs` show the failure without the userinfo,
 *   the healthchecks check's UUID or any other part of the URL's path (issue 39 #6).
 * - 6: `GET /jobs/{name}/config` shows a PostgreSQL `database` written as a URI with userinfo, a URI
 *   with `?password=` and a libpq key/value string with `password=` (quoted too) without the password.
 */
import { expect } from 'chai'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { redactSecrets } from '../../src/logs/redactSecrets.js'
import { loginCookie, startDaemon, type DaemonJob, type RunningDaemon } from '../ui/support/realDaemon.js'

const webhookSecret = 'webhookpass9'
const hcSecret = 'hcpass77'
const checkUuid = '5bf1c6c0-8b1e-4b2e-9a55-2f2c6b0e7a11'
const pgSecrets = ['uripass1', 'querypass2', 'kvpass3', 'quoted kv pass4']

describe('security: credentials in URLs and connection strings never reach a log or the config view (real daemon)', function () {
  this.timeout(60_000)
  let dir: string
  let daemon: RunningDaemon
  let cookie: string

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sec-redact-'))
    mkdirSync(join(dir, 'src'))
    writeFileSync(join(dir, 'src', 'a.txt'), 'a')
    const files = { sources: [{ type: 'local', name: 'f', path: join(dir, 'src') }], storages: [{ type: 'local', name: 'd', path: join(dir, 'store') }] }
    const notified = {
      name: 'notified',
      ...files,
      notify: [
        { type: 'webhook', url: `http://hookuser:${webhookSecret}@127.0.0.1:9/hook`, on: ['success', 'failure'] },
        { type: 'healthchecks', url: `http://hcuser:${hcSecret}@127.0.0.1:9/ping/${checkUuid}` },
      ],
    }
    const pg = {
      name: 'pg',
      sources: [
        { type: 'postgresql', name: 'uri', database: `postgresql://shop:${pgSecrets[0]}@db.internal:5432/shop` },
        { type: 'postgresql', name: 'query', database: `postgresql://shop@db.internal/shop?sslmode=require&password=${pgSecrets[1]}` },
        { type: 'postgresql', name: 'kv', database: `host=db.internal dbname=shop password=${pgSecrets[2]} sslmode=require` },
        { type: 'postgresql', name: 'kvq', database: `host=db.internal password='${pgSecrets[3]}' dbname=shop` },
      ],
      storages: files.storages,
    }
    daemon = await startDaemon({ dir, jobs: [notified, pg] as unknown as DaemonJob[] })
    cookie = await loginCookie(daemon.url)
  })
  after(async () => {
    await daemon?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  const get = async (path: string) => (await fetch(`${daemon.url}/api/v1${path}`, { headers: { cookie } })).text()

  it('item 5: notifier failures are logged without userinfo or the healthchecks UUID, in the job log, the system log and GET /logs', async () => {
    const run = await fetch(`${daemon.url}/api/v1/jobs/notified/run`, { method: 'POST', headers: { cookie } })
    expect(run.status).to.equal(202)
    // Both notifiers report their failure at the end of the run: wait for the second line, within a deadline.
    const deadline = Date.now() + 30_000
    let jobLogs = ''
    while (!/notify\[0\].*failed[\s\S]*notify\[1\].*failed|notify\[1\].*failed[\s\S]*notify\[0\].*failed/.test(jobLogs)) {
      expect(Date.now(), `no notifier failure logged:\n${jobLogs}`).to.be.below(deadline)
      await new Promise((resolve) => setTimeout(resolve, 100))
      jobLogs = await get('/jobs/notified/logs?tail=1000')
    }
    const systemLogs = await get('/logs/system?tail=1000')
    const jobFile = readFileSync(join(daemon.logsDir, 'jobs', 'notified.log'), 'utf8')
    const systemFile = readFileSync(join(daemon.logsDir, 'system.log'), 'utf8')
    for (const [where, text] of Object.entries({ jobLogs, systemLogs, jobFile, systemFile })) {
      for (const secret of [webhookSecret, hcSecret, checkUuid, 'hookuser', 'hcuser']) expect(text, `${where} holds "${secret}"`).not.to.include(secret)
    }
    // Issue 39 #6: the failure names its cause, never the URL's path (for many services the secret).
    expect(systemFile, 'the failure is in the system log').to.match(/notify\[1\] healthchecks 127\.0\.0\.1:9: failed: fetch failed: bad port/)
    expect(jobFile).to.match(/notify\[0\] webhook 127\.0\.0\.1:9: failed: fetch failed: bad port/)
    for (const text of [jobFile, systemFile]) expect(text).not.to.include('/hook').and.not.to.include('/ping')
  })

  it('item 6: GET /jobs/{name}/config shows no PostgreSQL password, in any form the source accepts', async () => {
    const text = await get('/jobs/pg/config')
    for (const secret of pgSecrets) expect(text).not.to.include(secret)
    const { config } = JSON.parse(text) as { config: { sources: { name: string; database: string }[] } }
    expect(config.sources.map((s) => s.database)).to.deep.equal([
      'postgresql://db.internal:5432/shop',
      'postgresql://db.internal/shop?sslmode=require',
      'host=db.internal dbname=shop sslmode=require',
      'host=db.internal dbname=shop',
    ])
  })
})

describe('security: redactSecrets, every form', () => {
  const cases: [string, string][] = [
    ['https://u:p@host/x', 'https://host/x'],
    ['https://token@host/x', 'https://host/x'],
    ['https://u:p@ss@host/x', 'https://host/x'],
    ['postgres://h/db?password=x&application_name=a', 'postgres://h/db?application_name=a'],
    ['postgres://h/db?Pass%77ord=x', 'postgres://h/db'],
    ['https://api.example/v1?api_key=abc&n=1', 'https://api.example/v1?n=1'],
    ["host=h password='a \\' b' dbname=d", 'host=h dbname=d'],
    ['password = x host=h', 'host=h'],
    ['ping https://hc-ping.com/5bf1c6c0-8b1e-4b2e-9a55-2f2c6b0e7a11/fail failed', 'ping https://hc-ping.com/… failed'],
    ['https://hc.example.org/ping/abc/slug', 'https://hc.example.org/ping/…'],
    ['no secret here: run 3 of 4 done', 'no secret here: run 3 of 4 done'],
  ]
  for (const [input, output] of cases) it(`${JSON.stringify(input)} -> ${JSON.stringify(output)}`, () => expect(redactSecrets(input)).to.equal(output))
})
