/**
 * Sessions end: a logout revokes the session on the server (the cookie copied before the logout no
 * longer works, even though the verified-token memo had it), every token refreshed from the same login
 * goes with it, and refreshing cannot keep a session alive past `maxSessionSeconds` (12 token lifetimes,
 * at most 24 h). Time is moved with createApp's `clock`, not slept.
 */
import { expect } from 'chai'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { revokedSessions } from '../../src/auth/revokedSessions.js'
import { maxSessionSeconds } from '../../src/auth/sessionToken.js'
import { createApp } from '../../src/server/createApp.js'
import { realEngine, type RealEngine } from '../api/support/realEngine.js'
import { cookiePair, loginCookie } from '../api/support/requests.js'
import { testConfig } from '../api/support/testConfig.js'
import { startDaemon, uiPassword, uiUser } from '../ui/support/realDaemon.js'

const expOf = (cookie: string) => JSON.parse(Buffer.from(cookie.split('=')[1]!.split('.')[1]!, 'base64url').toString()).exp as number

describe('security: logout ends the session on the server', () => {
  let real: RealEngine
  before(async () => (real = await realEngine()))
  after(() => real.close())

  it('the cookie used before the logout (and memoised) is refused after it; check says not authenticated; another login is unaffected', async () => {
    const app = createApp({ config: testConfig(), engine: real.engine })
    const cookie = await loginCookie(app)
    const other = await loginCookie(app)
    expect((await app.request('/api/v1/jobs', { headers: { cookie } })).status).to.equal(200)
    expect((await app.request('/api/v1/auth/logout', { method: 'POST', headers: { cookie } })).status).to.equal(200)
    const again = await app.request('/api/v1/jobs', { headers: { cookie } })
    expect(again.status).to.equal(401)
    expect((await again.json()).detail).to.match(/logout/)
    expect(await (await app.request('/api/v1/auth/check', { headers: { cookie } })).json()).to.deep.equal({ authenticated: false, authEnabled: true })
    expect((await app.request('/api/v1/jobs/nightly/run', { method: 'POST', headers: { cookie } })).status).to.equal(401)
    expect((await app.request('/api/v1/jobs', { headers: { cookie: other } })).status).to.equal(200)
  })

  it('a logout with a refreshed token also ends the tokens issued before it in the same session', async () => {
    let now = Date.UTC(2026, 0, 1, 12)
    const app = createApp({ config: testConfig(), engine: real.engine, clock: () => now })
    const first = await loginCookie(app)
    now += 27 * 60_000
    const res = await app.request('/api/v1/jobs', { headers: { cookie: first } })
    const refreshed = cookiePair(res)
    expect(refreshed).not.to.equal(first)
    expect((await app.request('/api/v1/auth/logout', { method: 'POST', headers: { cookie: refreshed } })).status).to.equal(200)
    expect((await app.request('/api/v1/jobs', { headers: { cookie: refreshed } })).status).to.equal(401)
    expect((await app.request('/api/v1/jobs', { headers: { cookie: first } })).status).to.equal(401)
  })

  it('against a real daemon: the cookie saved before logout gets 401 afterwards', async function () {
    this.timeout(60_000)
    const dir = mkdtempSync(join(tmpdir(), 'sec-session-'))
    mkdirSync(join(dir, 'src'))
    writeFileSync(join(dir, 'src', 'a'), 'a')
    const daemon = await startDaemon({
      dir,
      jobs: [
        { name: 'j', sources: [{ type: 'local', name: 'f', path: join(dir, 'src') }], storages: [{ type: 'local', name: 'd', path: join(dir, 'store') }] },
      ],
    })
    try {
      const login = await fetch(`${daemon.url}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: uiUser, password: uiPassword }),
      })
      const cookie = login.headers.get('set-cookie')!.split(';')[0]!
      expect((await fetch(`${daemon.url}/api/v1/jobs`, { headers: { cookie } })).status).to.equal(200)
      expect((await fetch(`${daemon.url}/api/v1/auth/logout`, { method: 'POST', headers: { cookie } })).status).to.equal(200)
      expect((await fetch(`${daemon.url}/api/v1/jobs`, { headers: { cookie } })).status).to.equal(401)
    } finally {
      await daemon.stop()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('security: a refreshed session has a lifetime cap', () => {
  let real: RealEngine
  before(async () => (real = await realEngine()))
  after(() => real.close())

  it('the cap is 12 token lifetimes, at most 24 h, at least one token lifetime', () => {
    expect(maxSessionSeconds(30)).to.equal(6 * 3600)
    expect(maxSessionSeconds(240)).to.equal(24 * 3600)
    expect(maxSessionSeconds(3000)).to.equal(3000 * 60)
  })

  it('refreshing every time stops at login + cap; the last token then expires and is refused', async () => {
    const start = Date.UTC(2026, 0, 1, 12)
    let now = start
    const app = createApp({ config: testConfig({ auth: { tokenExpiration: 30 } }), engine: real.engine, clock: () => now })
    let cookie = await loginCookie(app)
    const cap = maxSessionSeconds(30)
    let refreshes = 0
    for (let i = 0; i < 100; i++) {
      // Four minutes before the token ends: inside the 5-minute refresh window.
      now = expOf(cookie) * 1000 - 4 * 60_000
      const res = await app.request('/api/v1/jobs', { headers: { cookie } })
      expect(res.status).to.equal(200)
      if (!res.headers.get('set-cookie')) break
      cookie = cookiePair(res)
      refreshes++
      expect(expOf(cookie)).to.be.at.most(start / 1000 + cap)
    }
    expect(refreshes).to.be.greaterThan(5)
    expect(expOf(cookie)).to.equal(start / 1000 + cap)
    now = expOf(cookie) * 1000 + 1000
    expect((await app.request('/api/v1/jobs', { headers: { cookie } })).status).to.equal(401)
  })

  it('revokedSessions drops entries once their tokens would have expired and stays bounded', () => {
    const list = revokedSessions(2)
    list.revoke('a', 100, 0)
    expect(list.has('a', 99)).to.equal(true)
    expect(list.has('a', 100)).to.equal(false)
    list.revoke('b', 50, 0)
    list.revoke('c', 500, 0)
    list.revoke('d', 500, 60)
    expect(list.size).to.equal(2)
    expect(list.has('c', 61)).to.equal(true)
    expect(list.has('d', 61)).to.equal(true)
  })
})
