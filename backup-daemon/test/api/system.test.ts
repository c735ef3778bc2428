import { expect } from 'chai'
import { createApp } from '../../src/server/createApp.js'
import { FakeEngine, fakeJob } from './support/fakeEngine.js'
import { loginCookie } from './support/requests.js'
import { testConfig } from './support/testConfig.js'

describe('api: status and settings', () => {
  it('GET /status needs the session and reports version, uptime, auth and job counts', async () => {
    const engine = new FakeEngine([fakeJob('a'), fakeJob('b', { status: 'running' }), fakeJob('c', { active: false, status: 'cancelling' })])
    const app = createApp({ config: testConfig(), engine })
    expect((await app.request('/api/v1/status')).status).to.equal(401)
    const res = await app.request('/api/v1/status', { headers: { cookie: await loginCookie(app) } })
    expect(res.status).to.equal(200)
    const body = await res.json()
    expect(body.version).to.match(/^\d+\.\d+\.\d+/)
    expect(body.authEnabled).to.equal(true)
    expect(body.uptimeSeconds).to.be.a('number').at.least(0)
    expect(Date.parse(body.startedAt)).not.to.be.NaN
    expect(body.jobs).to.deep.equal({ total: 3, active: 2, idle: 1, running: 1, cancelling: 1 })
  })

  it('GET /settings is public and carries the spec fields from the config', async () => {
    const config = testConfig({ permissions: { allowManualRun: false }, logs: { system: false } })
    const res = await createApp({ config, engine: new FakeEngine() }).request('/api/v1/settings')
    expect(res.status).to.equal(200)
    expect(await res.json()).to.deep.equal({
      logLimits: { jobLogs: 1000, systemLogs: 2000 },
      logs: { perJob: true, system: false },
      permissions: { allowBackupDownload: true, allowManualRun: false, showConfig: true },
    })
  })
})
