import { expect } from 'chai'
import { EngineStoppingError } from '../../src/engine/errors.js'
import { createApp } from '../../src/server/createApp.js'
import { FakeEngine, fakeEncryptionPassword, fakeJob } from './support/fakeEngine.js'
import { loginCookie } from './support/requests.js'
import { testConfig, type TestConfigOverrides } from './support/testConfig.js'

async function setup(overrides: TestConfigOverrides = {}) {
  const engine = new FakeEngine()
  const app = createApp({ config: testConfig(overrides), engine })
  const cookie = await loginCookie(app)
  const get = (path: string) => app.request(path, { headers: { cookie } })
  const post = (path: string) => app.request(path, { method: 'POST', headers: { cookie } })
  return { engine, app, get, post }
}

describe('api: jobs', () => {
  it('GET /jobs lists every job with every JobSummary field', async () => {
    const { get } = await setup()
    const res = await get('/api/v1/jobs')
    expect(res.status).to.equal(200)
    const body = await res.json()
    expect(body.jobs.map((j: { name: string }) => j.name)).to.deep.equal(['nightly', 'weekly'])
    expect(body.jobs[0]).to.deep.equal(fakeJob('nightly'))
  })

  it('GET /jobs/{name}/status gives JobStatus (no counts), 404 Problem for an unknown job', async () => {
    const { get } = await setup()
    const res = await get('/api/v1/jobs/nightly/status')
    expect(res.status).to.equal(200)
    const { sourcesCount, storagesCount, schedule, ...status } = fakeJob('nightly')
    void [sourcesCount, storagesCount, schedule]
    expect(await res.json()).to.deep.equal(status)
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
    const engine = new FakeEngine([
      fakeJob('fresh', { lastResult: undefined, lastRun: undefined, nextRun: undefined, active: false }),
      fakeJob('ok', { lastResult: { success: true, duration: '2s' } }),
      fakeJob('failed', { lastResult: { success: false, duration: '1s', error: 'boom' } }),
    ])
    const app = createApp({ config: testConfig(), engine })
    const cookie = await loginCookie(app)
    const { jobs } = await (await app.request('/api/v1/jobs', { headers: { cookie } })).json()
    expect(jobs[0]).to.deep.equal({ name: 'fresh', active: false, schedule: '0 3 * * *', sourcesCount: 1, storagesCount: 1, status: 'idle' })
    expect(jobs[1].lastResult).to.deep.equal({ success: true, duration: '2s' })
    expect(jobs[2].lastResult).to.deep.equal({ success: false, duration: '1s', error: 'boom' })
    const fresh = await (await app.request('/api/v1/jobs/fresh/status', { headers: { cookie } })).json()
    expect(fresh).to.deep.equal({ name: 'fresh', active: false, status: 'idle' })
  })

  it('shows a run being cancelled as status running plus cancelling: true, in the list and the status', async () => {
    const { post, get } = await setup()
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
    expect(text).to.not.include(fakeEncryptionPassword)
    expect((await get('/api/v1/jobs/nope/config')).status).to.equal(404)
    const off = await (await setup({ permissions: { showConfig: false } })).get('/api/v1/jobs/nightly/config')
    expect(off.status).to.equal(200)
    expect(await off.json()).to.deep.equal({ job: 'nightly', config: { name: 'nightly', schedule: engine.getJob('nightly').schedule } })
    const offMissing = await (await setup({ permissions: { showConfig: false } })).get('/api/v1/jobs/nope/config')
    expect(offMissing.status).to.equal(404)
  })

  it('POST /jobs/{name}/run: 202 RunStarted, 409 while running, 404 unknown, 403 when manual runs are off, 503 when stopping', async () => {
    const { post, engine } = await setup()
    const res = await post('/api/v1/jobs/nightly/run')
    expect(res.status).to.equal(202)
    const body = await res.json()
    expect(body.job).to.equal('nightly')
    expect(Date.parse(body.startedAt)).to.be.a('number').and.not.NaN
    expect(engine.runs).to.deep.equal([{ job: 'nightly', trigger: 'manual' }])
    const again = await post('/api/v1/jobs/nightly/run')
    expect(again.status).to.equal(409)
    expect((await again.json()).detail).to.equal('job "nightly" is already running')
    expect((await post('/api/v1/jobs/nope/run')).status).to.equal(404)
    const off = await setup({ permissions: { allowManualRun: false } })
    expect((await off.post('/api/v1/jobs/nightly/run')).status).to.equal(403)
    expect(off.engine.runs).to.deep.equal([])
    engine.run = () => {
      throw new EngineStoppingError()
    }
    expect((await post('/api/v1/jobs/weekly/run')).status).to.equal(503)
  })

  it('POST /jobs/{name}/cancel: 409 without a run, 200 CancelResult during one, 404 unknown', async () => {
    const { post } = await setup()
    const idle = await post('/api/v1/jobs/nightly/cancel')
    expect(idle.status).to.equal(409)
    expect((await idle.json()).detail).to.equal('job "nightly" has no run in progress')
    await post('/api/v1/jobs/nightly/run')
    const res = await post('/api/v1/jobs/nightly/cancel')
    expect(res.status).to.equal(200)
    const body = await res.json()
    expect(body.job).to.equal('nightly')
    expect(body.cancelledAt).to.be.a('string')
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
