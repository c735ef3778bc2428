/**
 * `GET /metrics` on the real daemon process with auth on: 401 Problem without the session cookie,
 * Prometheus text with it; runs, failures, duration, size and last-success time move with real runs.
 * `server.metrics.enabled: false` removes the route; it is not part of the `/api/v1` OpenAPI document.
 */
import { expect } from 'chai'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { hashPassword } from '../../src/auth/password.js'
import { RunMetrics } from '../../src/metrics/RunMetrics.js'
import { createApp } from '../../src/server/createApp.js'
import { spawnDaemon, type DaemonProcess } from '../api/support/daemonProcess.js'
import { realEngine, type RealEngine } from '../api/support/realEngine.js'
import { testConfig } from '../api/support/testConfig.js'
import { makeTree, tempDir, waitFor } from '../engine/helpers.js'

/** The value of one series (`name{labels}`) in exposition text, or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

describe('GET /metrics (real daemon, auth on)', function () {
  this.timeout(60_000)
  let tmp: Awaited<ReturnType<typeof tempDir>>
  let daemon: DaemonProcess | undefined
  before(async () => {
    tmp = await tempDir()
    await makeTree(join(tmp.dir, 'src'))
    const file = join(tmp.dir, 'backup-daemon.yaml')
    await writeFile(
      file,
      `dataDir: ./data
server:
  address: 127.0.0.1:0
  secret: metrics-test-secret
  auth: { username: admin, password: "${await hashPassword('pw')}" }
jobs:
  - name: good
    sources: [{ type: local, name: files, path: ./src }]
    storages: [{ type: local, name: disk, path: ./backups }]
  - name: bad
    sources: [{ type: local, name: files, path: ./missing }]
    storages: [{ type: local, name: disk, path: ./backups }]
`,
    )
    daemon = await spawnDaemon(file)
  })
  after(async () => {
    await daemon?.stop()
    await tmp.remove()
  })

  it('401 Problem without a session; per-job series with one; they follow real runs', async () => {
    const url = daemon!.url
    const anonymous = await fetch(`${url}/metrics`)
    expect(anonymous.status).to.equal(401)
    expect(anonymous.headers.get('content-type')).to.include('application/problem+json')
    const login = await fetch(`${url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: 'pw' }),
    })
    expect(login.status).to.equal(200)
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!
    const scrape = async () => {
      const res = await fetch(`${url}/metrics`, { headers: { cookie } })
      expect(res.status).to.equal(200)
      expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/)
      return res.text()
    }
    const before = await scrape()
    expect(before).to.include('# TYPE backup_daemon_runs_total counter')
    expect(sample(before, 'backup_daemon_runs_total{job="good",status="success"}')).to.equal(0)
    expect(sample(before, 'backup_daemon_failures_total{job="bad"}')).to.equal(0)
    expect(sample(before, 'backup_daemon_last_success_timestamp_seconds{job="good"}')).to.equal(0)

    for (const job of ['good', 'bad']) {
      const run = await fetch(`${url}/api/v1/jobs/${job}/run`, { method: 'POST', headers: { cookie } })
      expect(run.status).to.equal(202)
    }
    const idle = async (job: string) =>
      ((await (await fetch(`${url}/api/v1/jobs/${job}/status`, { headers: { cookie } })).json()) as { status: string }).status === 'idle'
    await waitFor(async () => (await idle('good')) && (await idle('bad')), 30_000, 'both runs to end')
    const after = await waitFor(async () => {
      const text = await scrape()
      return sample(text, 'backup_daemon_runs_total{job="bad",status="failed"}') === 1 &&
        sample(text, 'backup_daemon_runs_total{job="good",status="success"}') === 1
        ? text
        : undefined
    })
    expect(sample(after, 'backup_daemon_failures_total{job="bad"}')).to.equal(1)
    expect(sample(after, 'backup_daemon_failures_total{job="good"}')).to.equal(0)
    expect(sample(after, 'backup_daemon_last_size_bytes{job="good"}')).to.be.greaterThan(1000)
    expect(sample(after, 'backup_daemon_last_duration_seconds{job="good"}')).to.be.greaterThan(0)
    const success = sample(after, 'backup_daemon_last_success_timestamp_seconds{job="good"}')!
    expect(Math.abs(success - Date.now() / 1000)).to.be.lessThan(60)
    expect(sample(after, 'backup_daemon_last_success_timestamp_seconds{job="bad"}')).to.equal(0)
  })
})

describe('GET /metrics (in-process app)', () => {
  let real: RealEngine
  before(async () => (real = await realEngine()))
  after(() => real.close())

  it('is off with server.metrics.enabled: false, and not in the /api/v1 OpenAPI document', async () => {
    const config = testConfig({ auth: { enabled: false } })
    const on = createApp({ config, engine: real.engine })
    const served = await on.request('/metrics')
    expect(served.status).to.equal(200)
    expect(await served.text()).to.include('# TYPE backup_daemon_')
    const off = createApp({ config: { ...config, server: { ...config.server, metrics: { enabled: false } } }, engine: real.engine })
    expect((await off.request('/metrics')).status).to.equal(404)
    const doc = (await (await on.request('/api/v1/openapi')).json()) as { paths: Record<string, unknown> }
    expect(Object.keys(doc.paths).some((path) => path.includes('metrics'))).to.equal(false)
  })
})

describe('metrics/RunMetrics exposition text', () => {
  it('declares every family once, escapes label values, leaves unknown gauges out', async () => {
    const metrics = new RunMetrics([{ name: 'a' }, { name: 'b', lastSuccessAt: new Date(1_700_000_000_000) }])
    metrics.record({ job: 'a', status: 'cancelled', durationSeconds: 1.5, finishedAt: new Date() })
    metrics.record({ job: 'we"ird\\', status: 'success', durationSeconds: 2, size: 10, finishedAt: new Date(1_800_000_000_000) })
    const { body, contentType } = await metrics.render()
    expect(contentType).to.equal('text/plain; version=0.0.4; charset=utf-8')
    for (const name of ['runs_total', 'failures_total', 'last_duration_seconds', 'last_size_bytes', 'last_success_timestamp_seconds']) {
      expect(body.split('\n').filter((l) => l.startsWith(`# TYPE backup_daemon_${name} `))).to.have.length(1)
    }
    expect(sample(body, 'backup_daemon_runs_total{job="a",status="cancelled"}')).to.equal(1)
    expect(sample(body, 'backup_daemon_failures_total{job="a"}')).to.equal(1)
    expect(sample(body, 'backup_daemon_last_success_timestamp_seconds{job="b"}')).to.equal(1_700_000_000)
    expect(sample(body, 'backup_daemon_last_size_bytes{job="a"}')).to.equal(undefined)
    expect(sample(body, 'backup_daemon_last_size_bytes{job="we\\"ird\\\\"}')).to.equal(10)
    expect(body.endsWith('\n')).to.equal(true)
  })
})
