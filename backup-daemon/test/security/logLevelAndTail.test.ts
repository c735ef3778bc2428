/**
 * Two small findings: a login user name containing "error" made its failed-login line an ERROR line
 * (the system log guessed the level from the text), and `tail=` (empty) returned 0 lines instead of
 * the default 100.
 */
import { expect } from 'chai'
import { createApp } from '../../src/server/createApp.js'
import { realEngine, type RealEngine } from '../api/support/realEngine.js'
import { loginCookie, postJson } from '../api/support/requests.js'
import { testConfig } from '../api/support/testConfig.js'

// eslint-disable-next-line no-control-regex -- the level sits between ANSI colour codes
const levelOf = (line: string) => /^\S+ (?:\u001b\[\d+m)?(\w+)/.exec(line)?.[1]

describe('security: a user-supplied name never sets a log line level', () => {
  let real: RealEngine
  before(async () => (real = await realEngine()))
  after(() => real.close())

  it('a failed login for user "error" (or "ERROR: ...") is a WARN line in the real system log', async () => {
    const hub = real.engine.logs
    const app = createApp({ config: testConfig(), engine: real.engine })
    for (const username of ['error', 'ERROR: disk failed', 'plain-user']) {
      expect((await postJson(app, '/api/v1/auth/login', { username, password: 'wrong' })).status).to.equal(401)
    }
    const lines = hub.tail({ kind: 'system' }, 10).filter((l) => l.includes('failed login'))
    expect(lines).to.have.length(3)
    for (const line of lines) expect(levelOf(line), line).to.equal('WARN')
  })
})

describe('security: tail= (empty) means the default', () => {
  let real: RealEngine
  before(async () => (real = await realEngine()))
  after(() => real.close())

  it('answers the default 100 lines for tail=, as for no tail at all', async () => {
    const engine = real.engine
    for (let i = 0; i < 150; i++) engine.logs.append({ kind: 'system' }, `line ${i}`)
    const app = createApp({ config: testConfig(), engine })
    const cookie = await loginCookie(app)
    const get = async (query: string) => ((await (await app.request(`/api/v1/logs/system${query}`, { headers: { cookie } })).json()) as { logs: string[] }).logs
    expect(await get('?tail=')).to.have.length(100)
    expect(await get('')).to.have.length(100)
    expect(await get('?tail=0')).to.have.length(0)
    expect(await get('?tail=7')).to.have.length(7)
  })
})
