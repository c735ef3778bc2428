import { expect } from 'chai'
import { SignJWT } from 'jose'
import { createApp } from '../../src/server/createApp.js'
import { realEngine, type RealEngine } from './support/realEngine.js'
import { cookieAttributes, cookiePair, loginCookie, postJson } from './support/requests.js'
import { testConfig, testPassword, testUser } from './support/testConfig.js'

const secret = 'test-secret-of-reasonable-length-0123456789'
const key = new TextEncoder().encode(secret)
const mint = (sub: string, expInSeconds: number, signingKey = key) =>
  new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(sub)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + expInSeconds)
    .sign(signingKey)

describe('api: auth', () => {
  let real: RealEngine
  before(async () => (real = await realEngine()))
  after(() => real.close())

  it('logs in: 200 {success:true} and an HttpOnly Path=/ cookie living tokenExpiration minutes, then the browser’s device cookie', async () => {
    const app = createApp({ config: testConfig({ auth: { tokenExpiration: 45 } }), engine: real.engine })
    const res = await postJson(app, '/api/v1/auth/login', { username: testUser, password: testPassword })
    expect(res.status).to.equal(200)
    expect(await res.json()).to.deep.equal({ success: true })
    const [header, device, ...more] = res.headers.getSetCookie()
    expect(more).to.deep.equal([])
    expect(device).to.match(/^backup_device=[\w-]{22}\.[\w-]{43}; Max-Age=34560000; Path=\/; HttpOnly; SameSite=Lax$/)
    expect(header).to.match(/^backup_session=[\w-]+\.[\w-]+\.[\w-]+;/)
    const attrs = cookieAttributes(header!)
    expect(attrs.has('httponly')).to.equal(true)
    expect(attrs.get('path')).to.equal('/')
    expect(attrs.get('max-age')).to.equal(String(45 * 60))
    expect(attrs.get('samesite')).to.equal('Lax')
    expect(attrs.has('secure')).to.equal(false)
    expect(attrs.has('domain')).to.equal(false)
  })

  it('takes Secure, SameSite and Domain from server.auth.cookies', async () => {
    const config = testConfig({ auth: { cookies: { secure: true, sameSite: 'Strict', domain: 'backup.example.org' } } })
    const res = await postJson(createApp({ config, engine: real.engine }), '/api/v1/auth/login', { username: testUser, password: testPassword })
    for (const header of res.headers.getSetCookie()) {
      const attrs = cookieAttributes(header)
      expect(attrs.has('secure')).to.equal(true)
      expect(attrs.get('samesite')).to.equal('Strict')
      expect(attrs.get('domain')).to.equal('backup.example.org')
    }
    expect(res.headers.getSetCookie()).to.have.length(2)
  })

  it('refuses a wrong password or user with 401 and logs the failure without the password', async () => {
    const engine = real.engine
    const app = createApp({ config: testConfig(), engine })
    for (const body of [
      { username: testUser, password: 'hunter2-wrong' },
      { username: 'root', password: testPassword },
    ]) {
      const res = await postJson(app, '/api/v1/auth/login', body)
      expect(res.status).to.equal(401)
      expect(res.headers.get('content-type')).to.equal('application/problem+json')
      expect(res.headers.get('set-cookie')).to.equal(null)
      expect((await res.json()).detail).to.equal('invalid username or password')
    }
    const system = engine.logs.tail({ kind: 'system' }, 100).join('\n')
    expect(system).to.include('failed login for user "admin"').and.include('failed login for user "root"')
    expect(system).not.to.include('hunter2-wrong')
    expect(system).not.to.include(testPassword)
  })

  it('rate-limits failed logins per address with 429 and Retry-After; the right password then waits too', async () => {
    const app = createApp({ config: testConfig(), engine: real.engine, loginLimits: { maxFailures: 3, windowMs: 60_000 } })
    for (let i = 0; i < 3; i++) expect((await postJson(app, '/api/v1/auth/login', { username: testUser, password: 'nope' })).status).to.equal(401)
    const res = await postJson(app, '/api/v1/auth/login', { username: testUser, password: testPassword })
    expect(res.status).to.equal(429)
    expect(Number(res.headers.get('retry-after'))).to.be.within(1, 60)
    expect((await res.json()).status).to.equal(429)
  })

  it('answers 401 Problem without a cookie, with a forged one, an expired one, or one for another user', async () => {
    const app = createApp({ config: testConfig(), engine: real.engine })
    const forged = await mint(testUser, 600, new TextEncoder().encode('another-key-another-key-another-key'))
    const expired = await mint(testUser, -10)
    const otherUser = await mint('mallory', 600)
    for (const cookie of [undefined, `backup_session=${forged}`, `backup_session=${expired}`, `backup_session=${otherUser}`, 'backup_session=garbage']) {
      const res = await app.request('/api/v1/jobs', { headers: cookie ? { cookie } : {} })
      expect(res.status, String(cookie)).to.equal(401)
      expect(res.headers.get('content-type')).to.equal('application/problem+json')
    }
  })

  it('accepts a valid cookie and refreshes it only when under 5 minutes remain', async () => {
    const app = createApp({ config: testConfig(), engine: real.engine })
    const fresh = await app.request('/api/v1/jobs', { headers: { cookie: `backup_session=${await mint(testUser, 20 * 60)}` } })
    expect(fresh.status).to.equal(200)
    expect(fresh.headers.get('set-cookie')).to.equal(null)
    const nearExpiry = await app.request('/api/v1/jobs', { headers: { cookie: `backup_session=${await mint(testUser, 4 * 60)}` } })
    expect(nearExpiry.status).to.equal(200)
    const header = nearExpiry.headers.get('set-cookie')!
    expect(header).to.match(/^backup_session=/)
    expect(cookieAttributes(header).get('max-age')).to.equal('1800')
    // The refreshed cookie is itself accepted and is not the old token.
    expect(cookiePair(nearExpiry)).not.to.include(await mint(testUser, 4 * 60))
    expect((await app.request('/api/v1/status', { headers: { cookie: cookiePair(nearExpiry) } })).status).to.equal(200)
  })

  it('logout clears the cookie with the same attributes and needs no session', async () => {
    const config = testConfig({ auth: { cookies: { secure: true, sameSite: 'None', domain: 'example.org' } } })
    const res = await createApp({ config, engine: real.engine }).request('/api/v1/auth/logout', { method: 'POST' })
    expect(res.status).to.equal(200)
    expect(await res.json()).to.deep.equal({ success: true })
    const header = res.headers.get('set-cookie')!
    expect(header).to.match(/^backup_session=;/)
    const attrs = cookieAttributes(header)
    expect(attrs.get('max-age')).to.equal('0')
    expect(attrs.get('path')).to.equal('/')
    expect(attrs.get('domain')).to.equal('example.org')
    expect(attrs.has('secure')).to.equal(true)
  })

  it('check reports authenticated only with a valid cookie, and never needs one', async () => {
    const app = createApp({ config: testConfig(), engine: real.engine })
    expect(await (await app.request('/api/v1/auth/check')).json()).to.deep.equal({ authenticated: false, authEnabled: true })
    const cookie = await loginCookie(app)
    expect(await (await app.request('/api/v1/auth/check', { headers: { cookie } })).json()).to.deep.equal({ authenticated: true, authEnabled: true })
  })

  it('signs with a random per-process key when server.secret is empty: another instance refuses the cookie', async () => {
    const config = testConfig({ secret: '' })
    const first = createApp({ config, engine: real.engine })
    const second = createApp({ config, engine: real.engine })
    const cookie = await loginCookie(first)
    expect((await first.request('/api/v1/jobs', { headers: { cookie } })).status).to.equal(200)
    expect((await second.request('/api/v1/jobs', { headers: { cookie } })).status).to.equal(401)
    // With the empty secret, a token signed with the empty key must not be accepted either.
    const emptyKeyToken = await mint(testUser, 600, new Uint8Array(32))
    expect((await first.request('/api/v1/jobs', { headers: { cookie: `backup_session=${emptyKeyToken}` } })).status).to.equal(401)
  })

  it('with auth disabled every endpoint works without a cookie and check says so', async () => {
    const app = createApp({ config: testConfig({ auth: { enabled: false } }), engine: real.engine })
    for (const path of ['/api/v1/jobs', '/api/v1/jobs/nightly/status', '/api/v1/logs/system', '/api/v1/status']) {
      expect((await app.request(path)).status, path).to.equal(200)
    }
    expect(await (await app.request('/api/v1/auth/check')).json()).to.deep.equal({ authenticated: true, authEnabled: false })
    const login = await postJson(app, '/api/v1/auth/login', { username: 'anyone', password: 'anything' })
    expect(login.status).to.equal(200)
    expect(login.headers.get('set-cookie')).to.equal(null)
    expect((await app.request('/api/v1/auth/logout', { method: 'POST' })).status).to.equal(200)
  })

  it('validates the login body: 400 with errors[].location body.*, 400 malformed JSON, 415 other content types', async () => {
    const app = createApp({ config: testConfig(), engine: real.engine })
    const missing = await postJson(app, '/api/v1/auth/login', { username: 42 })
    expect(missing.status).to.equal(400)
    const problem = await missing.json()
    expect(problem.errors).to.deep.include({ location: 'body.username', message: problem.errors[0].message, value: 42 })
    expect(problem.errors.map((e: { location: string }) => e.location)).to.include('body.password')
    const malformed = await app.request('/api/v1/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"username":' })
    expect(malformed.status).to.equal(400)
    expect((await malformed.json()).detail).to.match(/malformed JSON/)
    const noType = await app.request('/api/v1/auth/login', {
      method: 'POST',
      body: new TextEncoder().encode(JSON.stringify({ username: testUser, password: testPassword })),
    })
    expect(noType.status).to.equal(415)
    expect(noType.headers.get('set-cookie')).to.equal(null)
    const form = await app.request('/api/v1/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'username=admin',
    })
    expect(form.status).to.equal(415)
    expect(form.headers.get('content-type')).to.equal('application/problem+json')
    const big = await postJson(app, '/api/v1/auth/login', { username: testUser, password: 'x'.repeat(20_000) })
    expect(big.status).to.equal(413)
  })
})
