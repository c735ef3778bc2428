import { expect } from 'chai'
import { createApp } from '../../src/server/createApp.js'
import { FakeEngine } from './support/fakeEngine.js'
import { heldJob, realEngine, type RealEngine, type RealEngineOptions } from './support/realEngine.js'
import { loginCookie } from './support/requests.js'
import { testConfig, type TestConfigOverrides } from './support/testConfig.js'

/** The encryption password of job `nightly`: it must never appear in an answer. */
const encryptionPassword = 'real-encryption-password-0123'
const engines: RealEngine[] = []

/** Jobs `nightly` (held in its beforeScript until released, encrypted) and `weekly` (inactive), on the real engine. */
async function setup(overrides: TestConfigOverrides = {}, options: RealEngineOptions = {}) {
  const real = await realEngine({
    jobs: [
      heldJob('nightly', `    schedule: '0 3 * * *'\n    encryption: { type: openssl, cipher: aes-256-cbc, password: ${encryptionPassword} }\n`),
      { name: 'weekly', extra: "    schedule: '0 4 * * 0'\n    active: false\n" },
    ],
    ...options,
  })
  engines.push(real)
  const engine = real.engine
  const app = createApp({ config: testConfig(overrides), engine })
  const cookie = await loginCookie(app)
  const get = (path: string) => app.request(path, { headers: { cookie } })
  const post = (path: string) => app.request(path, { method: 'POST', headers: { cookie } })
  return { real, engine, app, get, post }
}

describe('api: jobs', function () {
  this.timeout(60_000)
  afterEach(async () => {
    for (const real of engines.splice(0)) await real.close()
  })

  it('GET /jobs lists every job with every JobSummary field', async () => {
    const { get, real } = await setup()
    const res = await get('/api/v1/jobs')
    expect(res.status).to.equal(200)
    const body = await res.json()
    expect(body.jobs.map((j: { name: string }) => j.name)).to.deep.equal(['nightly', 'weekly'])
    expect(body.jobs[0]).to.deep.equal({ name: 'nightly', active: true, schedule: '0 3 * * *', sourcesCount: 1, storagesCount: 1, status: 'idle' })
    const ran = real.runJob('nightly')
    await real.release()
    await ran
    const after = (await (await get('/api/v1/jobs')).json()).jobs[0]
    expect(Object.keys(after).sort()).to.deep.equal(['active', 'lastResult', 'lastRun', 'name', 'schedule', 'sourcesCount', 'status', 'storagesCount'])
    expect(after.lastResult).to.include({ success: true })
    expect(after.lastResult.duration).to.match(/s$/)
    expect(Date.parse(after.lastRun)).to.be.a('number').and.not.NaN
  })

  it('GET /jobs/{name}/status gives JobStatus (no counts), 404 Problem for an unknown job', async () => {
    const { get } = await setup()
    const res = await get('/api/v1/jobs/nightly/status')
    expect(res.status).to.equal(200)
    expect(await res.json()).to.deep.equal({ name: 'nightly', active: true, status: 'idle' })
    const missing = await get('/api/v1/jobs/nope/status')
    expect(missing.status).to.equal(404)
    expect(missing.headers.get('content-type')).to.equal('application/problem+json')
    expect(await missing.json()).to.deep.equal({
      type: 'about:blank',
      title: 'Not Found',
      status: 404,
      detail: 'job "nope" not found',
      instance: '/api/v1/jobs/nope/status',
      errors: [],
      error: 'job "nope" not found',
    })
  })

  it('leaves empty optional fields out: a never-run job has no lastResult, lastRun or nextRun; a success no error', async () => {
    const real = await realEngine({
      jobs: [
        { name: 'fresh', extra: "    schedule: '0 3 * * *'\n    active: false\n" },
        { name: 'ok' },
        { name: 'failed', extra: '    beforeScript: exit 7\n' },
      ],
    })
    engines.push(real)
    await real.runJob('ok')
    real.engine.run('failed', 'manual')
    await real.engine.whenIdle('failed')
    const app = createApp({ config: testConfig(), engine: real.engine })
    const cookie = await loginCookie(app)
    const { jobs } = await (await app.request('/api/v1/jobs', { headers: { cookie } })).json()
    expect(jobs[0]).to.deep.equal({ name: 'fresh', active: false, schedule: '0 3 * * *', sourcesCount: 1, storagesCount: 1, status: 'idle' })
    expect(Object.keys(jobs[1].lastResult).sort()).to.deep.equal(['duration', 'success'])
    expect(jobs[1].lastResult.success).to.equal(true)
    expect(jobs[2].lastResult).to.deep.include({ success: false, error: 'beforeScript failed: exit code 7' })
    const fresh = await (await app.request('/api/v1/jobs/fresh/status', { headers: { cookie } })).json()
    expect(fresh).to.deep.equal({ name: 'fresh', active: false, status: 'idle' })
  })

  it('shows a run being cancelled as status running plus cancelling: true, in the list and the status', async () => {
    // The in-memory double: a cancelled real run ends within milliseconds (its script is killed), so the real
    // engine cannot be held in "cancelling" for the three requests below.
    const engine = new FakeEngine()
    const app = createApp({ config: testConfig(), engine })
    const cookie = await loginCookie(app)
    const get = (path: string) => app.request(path, { headers: { cookie } })
    const post = (path: string) => app.request(path, { method: 'POST', headers: { cookie } })
    await post('/api/v1/jobs/nightly/run')
    expect(await (await get('/api/v1/jobs/nightly/status')).json())
      .to.include({ status: 'running' })
      .and.not.have.property('cancelling')
    expect((await post('/api/v1/jobs/nightly/cancel')).status).to.equal(200)
    expect(await (await get('/api/v1/jobs/nightly/status')).json()).to.include({ status: 'running', cancelling: true })
    const listed = (await (await get('/api/v1/jobs')).json()).jobs[0]
    expect(listed).to.include({ name: 'nightly', status: 'running', cancelling: true })
  })

  it('GET /jobs/{name}/config: 200 {job, config}, 404 unknown, 200 {job, config: {name, schedule}} when showConfig is off', async () => {
    const { get, engine } = await setup()
    const res = await get('/api/v1/jobs/nightly/config')
    expect(res.status).to.equal(200)
    const text = await res.text()
    expect(JSON.parse(text)).to.deep.equal({ job: 'nightly', config: engine.jobConfig('nightly') })
    expect(JSON.parse(text)).to.have.nested.property('config.encryption.cipher', 'aes-256-cbc')
    expect(text).to.not.include(encryptionPassword)
    expect((await get('/api/v1/jobs/nope/config')).status).to.equal(404)
    const off = await (await setup({ permissions: { showConfig: false } })).get('/api/v1/jobs/nightly/config')
    expect(off.status).to.equal(200)
    expect(await off.json()).to.deep.equal({ job: 'nightly', config: { name: 'nightly', schedule: engine.getJob('nightly').schedule } })
    const offMissing = await (await setup({ permissions: { showConfig: false } })).get('/api/v1/jobs/nope/config')
    expect(offMissing.status).to.equal(404)
  })

  it('POST /jobs/{name}/run: 202 RunStarted, 409 while running, 404 unknown, 403 when manual runs are off, 503 when stopping', async () => {
    const { post, engine, real } = await setup()
    const res = await post('/api/v1/jobs/nightly/run')
    expect(res.status).to.equal(202)
    const body = await res.json()
    expect(body.job).to.equal('nightly')
    expect(Date.parse(body.startedAt)).to.be.a('number').and.not.NaN
    expect(engine.getJob('nightly').status).to.equal('running')
    const again = await post('/api/v1/jobs/nightly/run')
    expect(again.status).to.equal(409)
    expect((await again.json()).detail).to.equal('job "nightly" is already running')
    expect((await post('/api/v1/jobs/nope/run')).status).to.equal(404)
    await real.release()
    expect((await engine.whenIdle('nightly')).status, 'the run started by the API ran').to.equal('success')
    const off = await setup({ permissions: { allowManualRun: false } })
    expect((await off.post('/api/v1/jobs/nightly/run')).status).to.equal(403)
    expect((await off.engine.whenIdle('nightly')).status, 'no run started').to.equal('idle')
    // A real engine that is shutting down refuses new runs.
    const stopping = engine.stop()
    expect((await post('/api/v1/jobs/weekly/run')).status).to.equal(503)
    await stopping
  })

  it('POST /jobs/{name}/cancel: 409 without a run, 200 CancelResult during one, 404 unknown', async () => {
    const { post, engine } = await setup()
    const idle = await post('/api/v1/jobs/nightly/cancel')
    expect(idle.status).to.equal(409)
    expect((await idle.json()).detail).to.equal('job "nightly" has no run in progress')
    await post('/api/v1/jobs/nightly/run')
    const res = await post('/api/v1/jobs/nightly/cancel')
    expect(res.status).to.equal(200)
    const body = await res.json()
    expect(body.job).to.equal('nightly')
    expect(body.cancelledAt).to.be.a('string')
    expect((await engine.whenIdle('nightly')).status, 'the held run was cancelled').to.equal('cancelled')
    expect((await post('/api/v1/jobs/nope/cancel')).status).to.equal(404)
  })

  it('every job endpoint needs the session when auth is on', async () => {
    const { app } = await setup()
    for (const [method, path] of [
      ['GET', '/api/v1/jobs'],
      ['GET', '/api/v1/jobs/nightly/status'],
      ['GET', '/api/v1/jobs/nightly/config'],
      ['POST', '/api/v1/jobs/nightly/run'],
      ['POST', '/api/v1/jobs/nightly/cancel'],
      ['GET', '/api/v1/jobs/nightly/backups'],
      ['GET', '/api/v1/jobs/nightly/backups/x.tar.gz/download'],
      ['GET', '/api/v1/jobs/nightly/logs'],
      ['GET', '/api/v1/jobs/nightly/logs/stream'],
      ['GET', '/api/v1/logs/system'],
      ['GET', '/api/v1/logs/system/stream'],
    ] as const) {
      const res = await app.request(path, { method })
      expect(res.status, `${method} ${path}`).to.equal(401)
      expect(res.headers.get('content-type')).to.equal('application/problem+json')
    }
  })
})
