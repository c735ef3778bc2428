import { expect } from 'chai'
import { createApp } from '../../src/server/createApp.js'
import { FakeEngine, fakeJob } from './support/fakeEngine.js'
import { realEngine, type RealEngine } from './support/realEngine.js'
import { loginCookie } from './support/requests.js'
import { testConfig } from './support/testConfig.js'

/**
 * What the original web client reads before login (its system page; its login page shows `version`, issue 38);
 * NODE_ENV and the rest need a session (issue 28).
 */
const publicKeys = ['jobsCount', 'status', 'uptime', 'version']

describe('api: status and settings', () => {
  // Three real jobs (one inactive) on a temporary folder.
  let real: RealEngine
  before(async () => (real = await realEngine({ jobs: [{ name: 'a' }, { name: 'b' }, { name: 'c', extra: '    active: false\n' }] })))
  after(() => real.close())
  // The in-memory double only where the counts by state need a run that stays "cancelling": the real engine
  // passes through that state in milliseconds and cannot be held in it on demand.
  const jobs = () => [fakeJob('a'), fakeJob('b', { status: 'running' }), fakeJob('c', { active: false, status: 'running', cancelling: true })]

  it('GET /status is public with status ok, uptime, jobsCount and version (what the original web client reads before login), nothing more', async () => {
    const app = createApp({ config: testConfig(), engine: real.engine })
    const res = await app.request('/api/v1/status')
    expect(res.status).to.equal(200)
    const body = await res.json()
    expect(Object.keys(body).sort()).to.deep.equal(publicKeys)
    expect(body.status).to.equal('ok')
    expect(body.uptime).to.be.a('number').at.least(0)
    expect(Number.isInteger(body.uptime)).to.equal(true)
    expect(body.jobsCount).to.equal(3)
    expect(body.version).to.match(/^\d+\.\d+\.\d+/)
    // A forged cookie is no session: still only the public fields, and no 401.
    const forged = await app.request('/api/v1/status', { headers: { cookie: 'backup_session=forged.token.value' } })
    expect(forged.status).to.equal(200)
    expect(Object.keys(await forged.json()).sort()).to.deep.equal(publicKeys)
  })

  it('GET /status adds the daemon details (auth, start time, job counts by state) for a session', async () => {
    const app = createApp({ config: testConfig(), engine: new FakeEngine(jobs()) })
    const res = await app.request('/api/v1/status', { headers: { cookie: await loginCookie(app) } })
    expect(res.status).to.equal(200)
    const body = await res.json()
    expect(body).to.include({ status: 'ok', jobsCount: 3, authEnabled: true })
    expect(body.version).to.match(/^\d+\.\d+\.\d+/)
    expect(body.environment).to.be.a('string').and.not.equal('')
    expect(body.uptimeSeconds).to.equal(body.uptime)
    expect(Date.parse(body.startedAt)).not.to.be.NaN
    expect(body.jobs).to.deep.equal({ total: 3, active: 2, idle: 1, running: 1, cancelling: 1 })
  })

  it('GET /status adds the details without a cookie when auth is off', async () => {
    const app = createApp({ config: testConfig({ auth: { enabled: false } }), engine: real.engine })
    const body = await (await app.request('/api/v1/status')).json()
    expect(body).to.include({ status: 'ok', authEnabled: false })
    expect(body.jobs.total).to.equal(3)
  })

  it('GET /settings is public and carries the spec fields from the config, and the default language', async () => {
    const config = testConfig({ permissions: { allowManualRun: false }, logs: { system: false } })
    const res = await createApp({ config, engine: real.engine }).request('/api/v1/settings')
    expect(res.status).to.equal(200)
    expect(await res.json()).to.deep.equal({
      logLimits: { jobLogs: 1000, systemLogs: 2000 },
      logs: { perJob: true, system: false },
      permissions: { allowBackupDownload: true, allowManualRun: false, showConfig: true, allowRestore: false },
      defaultLanguage: 'en',
    })
    const ru = testConfig()
    ru.server.defaultLanguage = 'ru'
    expect((await (await createApp({ config: ru, engine: real.engine }).request('/api/v1/settings')).json()).defaultLanguage).to.equal('ru')
  })
})
