/**
 * The CSRF rule of `server/originCheck.ts`, driven in process through `app.request()` with every
 * combination of Origin / Sec-Fetch-Site / Referer / Host a browser, a proxy or a CLI sends.
 */
import { expect } from 'chai'
import { createApp } from '../../src/server/createApp.js'
import { realEngine, type RealEngine } from '../api/support/realEngine.js'
import { loginCookie, postJson } from '../api/support/requests.js'
import { testConfig, testPassword, testUser } from '../api/support/testConfig.js'

const host = '127.0.0.1:8080'

/** Each test gets its own real engine (a temporary folder): whether its job ran is that test's answer alone. */
let real: RealEngine | undefined

/** What the job's last run was: `idle` when it never started, `success` once a started run finished. */
const lastRun = async (engine: RealEngine['engine']) => (await engine.whenIdle('nightly')).status

async function setup(allowedOrigins: string[] = [], auth: { enabled?: boolean } = {}) {
  real = await realEngine()
  const engine = real.engine
  const app = createApp({ config: testConfig({ auth: { allowedOrigins, ...auth } }), engine })
  const cookie = 'enabled' in auth ? '' : await loginCookie(app)
  const run = (headers: Record<string, string>, method = 'POST') => app.request('/api/v1/jobs/nightly/run', { method, headers: { host, cookie, ...headers } })
  return { app, engine, cookie, run }
}

describe('security: state-changing API requests must come from an allowed origin (CSRF)', () => {
  afterEach(async () => {
    await real?.close()
    real = undefined
  })

  const refused: [string, Record<string, string>][] = [
    ['Origin of another port on the same host', { origin: 'http://127.0.0.1:9999' }],
    ['Origin of another host name for the same machine', { origin: 'http://localhost:8080' }],
    ['Origin of a sibling subdomain', { origin: 'http://evil.127.0.0.1.nip.io:8080' }],
    ['Origin "null" (sandboxed frame, file: page)', { origin: 'null' }],
    ['an unparsable Origin', { origin: 'not an origin' }],
    ['a cross-site Origin even with Sec-Fetch-Site same-origin', { origin: 'http://evil.example', 'sec-fetch-site': 'same-origin' }],
    ['no Origin, Sec-Fetch-Site same-site', { 'sec-fetch-site': 'same-site' }],
    ['no Origin, Sec-Fetch-Site cross-site', { 'sec-fetch-site': 'cross-site' }],
    ['no Origin nor Sec-Fetch-Site, a Referer from another port', { referer: 'http://127.0.0.1:9999/page.html' }],
    ['no Origin nor Sec-Fetch-Site, a garbage Referer', { referer: '::::' }],
  ]
  for (const [what, headers] of refused) {
    it(`refuses with a 403 Problem: ${what}; the job does not start`, async () => {
      const { engine, run } = await setup()
      const res = await run(headers)
      expect(res.status).to.equal(403)
      expect(res.headers.get('content-type')).to.equal('application/problem+json')
      expect((await res.json()).detail).to.match(/^cross-site request refused/)
      expect(await lastRun(engine)).to.equal('idle')
    })
  }

  const accepted: [string, Record<string, string>][] = [
    ['the own Origin (what the daemon UI sends)', { origin: `http://${host}` }],
    ['the own Origin under https (TLS-terminating proxy keeping Host)', { origin: `https://${host}` }],
    ['no browser headers at all (curl, the CLI)', {}],
    ['no Origin, Sec-Fetch-Site same-origin', { 'sec-fetch-site': 'same-origin' }],
    ['no Origin, Sec-Fetch-Site none (typed by the user)', { 'sec-fetch-site': 'none' }],
    ['no Origin nor Sec-Fetch-Site, a Referer of the own origin', { referer: `http://${host}/jobs/nightly` }],
  ]
  for (const [what, headers] of accepted) {
    it(`accepts ${what}`, async () => {
      const { engine, run } = await setup()
      const res = await run(headers)
      expect(res.status, await res.clone().text()).to.equal(202)
      expect(await lastRun(engine)).to.equal('success')
    })
  }

  it('accepts an origin listed in server.auth.allowedOrigins (a proxy rewriting Host), default port or not', async () => {
    const { engine, run } = await setup(['https://backup.example.org', 'http://ops.example.org:8443'])
    expect((await run({ origin: 'https://backup.example.org', host: 'internal:8080' })).status).to.equal(202)
    await engine.whenIdle('nightly')
    expect((await run({ origin: 'https://backup.example.org:443', host: 'internal:8080' })).status).to.equal(202)
    await engine.whenIdle('nightly')
    expect((await run({ origin: 'http://ops.example.org:8443', host: 'internal:8080' })).status).to.equal(202)
    expect((await run({ origin: 'http://ops.example.org', host: 'internal:8080' })).status).to.equal(403)
    expect((await run({ origin: 'https://evil.example.org', host: 'internal:8080' })).status).to.equal(403)
  })

  it('matches the Host header with and without the default port', async () => {
    const { app } = await setup()
    const res = await app.request('/api/v1/auth/logout', { method: 'POST', headers: { host: 'localhost:443', origin: 'https://localhost' } })
    expect(res.status).to.equal(200)
    const other = await app.request('/api/v1/auth/logout', {
      method: 'POST',
      headers: { host: 'localhost', origin: 'http://localhost:8080' },
    })
    expect(other.status).to.equal(403)
  })

  it('guards cancel, logout and login too, but never GET, HEAD or OPTIONS', async () => {
    const { app, cookie, run } = await setup()
    const evil = { host, cookie, origin: 'http://127.0.0.1:9999' }
    expect((await app.request('/api/v1/jobs/nightly/cancel', { method: 'POST', headers: evil })).status).to.equal(403)
    const logout = await app.request('/api/v1/auth/logout', { method: 'POST', headers: evil })
    expect(logout.status).to.equal(403)
    expect(logout.headers.get('set-cookie')).to.equal(null)
    const login = await postJson(app, '/api/v1/auth/login', { username: testUser, password: testPassword }, { host, origin: 'http://127.0.0.1:9999' })
    expect(login.status).to.equal(403)
    expect(login.headers.get('set-cookie')).to.equal(null)
    expect((await app.request('/api/v1/jobs', { headers: evil })).status).to.equal(200)
    expect((await run({ origin: 'http://127.0.0.1:9999' }, 'HEAD')).status).not.to.equal(403)
    expect((await run({ origin: 'http://127.0.0.1:9999' }, 'OPTIONS')).status).not.to.equal(403)
  })

  it('also applies with auth switched off', async () => {
    const { app, engine } = await setup([], { enabled: false })
    const res = await app.request('/api/v1/jobs/nightly/run', { method: 'POST', headers: { host, origin: 'http://localhost:3000' } })
    expect(res.status).to.equal(403)
    expect(await lastRun(engine)).to.equal('idle')
  })

  it('issue 39 #2: GET /metrics with auth off refuses a browser under a rebound Host, as /api/v1 does', async () => {
    const { app } = await setup([], { enabled: false })
    const metrics = (headers: Record<string, string>) => app.request('/metrics', { headers })
    const rebound = await metrics({ host: 'rebind.test:8080', 'sec-fetch-site': 'same-origin' })
    expect(rebound.status).to.equal(403)
    expect(rebound.headers.get('content-type')).to.equal('application/problem+json')
    const text = await rebound.text()
    expect(text).to.match(/DNS rebinding/)
    expect(text).not.to.include('nightly')
    expect((await metrics({ host: 'rebind.test:8080', origin: 'http://rebind.test:8080' })).status).to.equal(403)
    // The own names, and a scraper (no browser headers) under any name.
    const own = await metrics({ host, 'sec-fetch-site': 'same-origin' })
    expect(own.status).to.equal(200)
    expect(await own.text()).to.include('nightly')
    expect((await metrics({ host: 'rebind.test:8080' })).status).to.equal(200)
  })
})
