import { expect } from 'chai'
import { createApp } from '../../src/server/createApp.js'
import { realEngine, stampedLine, type RealEngine } from './support/realEngine.js'
import { loginCookie } from './support/requests.js'
import { testConfig } from './support/testConfig.js'

const engines: RealEngine[] = []

/**
 * A real engine whose job ran once (the run metadata), then 50 010 lines in the job's log and three in the
 * system log (kept in memory up to logLimits; lines written with their time are kept exactly as given).
 */
async function setup(logs: { perJob?: boolean; system?: boolean } = {}) {
  const real = await realEngine({ overrides: { logs }, logLimits: { jobLogs: 60_000 } })
  engines.push(real)
  const engine = real.engine
  if (logs.perJob !== false) await real.runJob('nightly')
  for (let i = 1; i <= 50_010; i++) engine.logs.append({ kind: 'job', job: 'nightly' }, stampedLine(`line ${i}`))
  for (let i = 1; i <= 3; i++) engine.logs.append({ kind: 'system' }, stampedLine(`\u001b[32msystem ${i}\u001b[0m`))
  const app = createApp({ config: testConfig({ logs }), engine })
  const cookie = await loginCookie(app)
  return { engine, get: (path: string) => app.request(path, { headers: { cookie } }) }
}

describe('api: logs', () => {
  afterEach(async () => {
    for (const real of engines.splice(0)) await real.close()
  })

  it('GET /jobs/{name}/logs: JobLog with the newest 100 lines by default and the run metadata', async () => {
    const { get } = await setup()
    const res = await get('/api/v1/jobs/nightly/logs')
    expect(res.status).to.equal(200)
    const body = await res.json()
    expect(Object.keys(body).sort()).to.deep.equal(['duration', 'endTime', 'error', 'job', 'logs', 'startTime', 'status'])
    expect(body.job).to.equal('nightly')
    expect(body.status).to.equal('success')
    expect(body.logs).to.have.length(100)
    expect(body.logs[0]).to.equal(stampedLine('line 49911'))
    expect(body.logs[99]).to.equal(stampedLine('line 50010'))
  })

  it('tail: exact count, 0 gives none, above 50000 is capped, below 0 or not an integer is 400 with query.tail', async () => {
    const { get } = await setup()
    expect((await (await get('/api/v1/jobs/nightly/logs?tail=3')).json()).logs).to.deep.equal(['line 50008', 'line 50009', 'line 50010'].map(stampedLine))
    expect((await (await get('/api/v1/jobs/nightly/logs?tail=0')).json()).logs).to.deep.equal([])
    const capped = (await (await get('/api/v1/jobs/nightly/logs?tail=999999')).json()).logs
    expect(capped).to.have.length(50_000)
    expect(capped[0]).to.equal(stampedLine('line 11'))
    for (const [raw, sent] of [
      ['-1', '-1'],
      ['abc', 'abc'],
      ['1.5', '1.5'],
    ]) {
      const res = await get(`/api/v1/jobs/nightly/logs?tail=${raw}`)
      expect(res.status, raw).to.equal(400)
      const problem = await res.json()
      expect(problem.errors).to.have.length(1)
      expect(problem.errors[0]).to.include({ location: 'query.tail', value: sent })
    }
  })

  it('404 for an unknown job; an empty list when per-job logs are off', async () => {
    expect((await (await setup()).get('/api/v1/jobs/nope/logs')).status).to.equal(404)
    const { get } = await setup({ perJob: false })
    const res = await get('/api/v1/jobs/nightly/logs')
    expect(res.status).to.equal(200)
    expect((await res.json()).logs).to.deep.equal([])
  })

  it('GET /logs/system: SystemLog with ANSI colours kept, tail applies, empty when the system log is off', async () => {
    const { get } = await setup()
    const res = await get('/api/v1/logs/system?tail=2')
    expect(res.status).to.equal(200)
    expect(await res.json()).to.deep.equal({ logs: ['\u001b[32msystem 2\u001b[0m', '\u001b[32msystem 3\u001b[0m'].map(stampedLine) })
    expect((await get('/api/v1/logs/system?tail=-5')).status).to.equal(400)
    const off = await setup({ system: false })
    expect(await (await off.get('/api/v1/logs/system')).json()).to.deep.equal({ logs: [] })
  })
})
