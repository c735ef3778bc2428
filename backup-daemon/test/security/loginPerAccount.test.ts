/**
 * Issue 28 item 1: the login limit holds per account, not only per address. A real daemon process gets
 * 10 wrong passwords from each of 20 loopback addresses (127.0.28.1-20, every one under its own
 * per-address limit): only the account's 10 free failures reach the password check, the other 190 are
 * 429 with Retry-After. What the owner then sees: from the address they logged in from before, the right
 * password logs in at once; from a new address it is 429 with a Retry-After of at most 60 s, and after
 * waiting that long it logs in.
 *
 * Issue 39 #3: a local user (nobody, curl from 127.0.0.1, the owner's address) cannot keep the owner out.
 * Failures for a made-up name spend that name's budget only; failures for the real name leave the browser
 * that logged in before (its `backup_device` cookie, in Chromium) its own budget, while a browser never
 * logged in is told to wait. In-process: a flood of made-up names cannot push the account's counts out of
 * the bounded tables, an address is trusted for every name alike, and a forged or foreign device cookie
 * counts for nothing.
 */
import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { request } from 'node:http'
import { setTimeout as delay } from 'node:timers/promises'
import { accountLoginLimiter } from '../../src/auth/accountLoginLimiter.js'
import { deviceCookieName } from '../../src/auth/deviceCookie.js'
import { createApp } from '../../src/server/createApp.js'
import { realEngine, type RealEngine } from '../api/support/realEngine.js'
import { postJson } from '../api/support/requests.js'
import { testConfig, testPassword, testUser } from '../api/support/testConfig.js'
import { launchBrowser } from '../ui/support/browser.js'
import { startOneFileDaemon, uiPassword, uiUser, type RunningDaemon } from '../ui/support/realDaemon.js'
import { logInWithKeyboard } from '../ui/support/uiFixture.js'

interface Answer {
  status: number
  retryAfter: number
}

/** POST /auth/login to the daemon at `url` from the loopback address `from`. */
const loginFrom = (url: string, from: string, username: string, password: string) =>
  new Promise<Answer>((resolve, reject) => {
    const body = JSON.stringify({ username, password })
    const req = request(`${url}/api/v1/auth/login`, { method: 'POST', localAddress: from, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume()
      res.on('end', () => resolve({ status: res.statusCode!, retryAfter: Number(res.headers['retry-after'] ?? 0) }))
    })
    req.on('error', reject)
    req.end(body)
  })

describe('security: failed logins are limited per account, whatever the address (real daemon, 20 loopback addresses)', function () {
  this.timeout(120_000)
  let daemon: RunningDaemon

  before(async () => {
    daemon = await startOneFileDaemon('sec-account-')
  })
  after(async () => {
    await daemon?.stop()
  })

  const login = (from: string, password: string) => loginFrom(daemon.url, from, uiUser, password)

  /** 10 wrong passwords from each of 20 addresses `127.0.28.<first>`..: the addresses in parallel, each one's in turn. */
  const attack = async (first: number) => {
    const addresses = Array.from({ length: 20 }, (_, i) => `127.0.28.${first + i}`)
    const perAddress = await Promise.all(
      addresses.map(async (from) => {
        const answers: Answer[] = []
        for (let i = 0; i < 10; i++) answers.push(await login(from, `wrong password ${from} ${i}`))
        return answers
      }),
    )
    const answers = perAddress.flat()
    expect(answers).to.have.length(200)
    expect(
      answers.filter((a) => a.status === 401),
      'guesses that reached the password check',
    ).to.have.length(10)
    const refused = answers.filter((a) => a.status === 429)
    expect(refused).to.have.length(190)
    for (const a of refused) expect(a.retryAfter).to.be.within(1, 60)
  }

  it('200 wrong passwords from 20 addresses: 10 reach the check, 190 get 429; the owner gets in at once from a known address, after Retry-After from a new one', async () => {
    expect((await login('127.0.28.100', uiPassword)).status, 'the owner logs in once before the attack').to.equal(200)

    await attack(1)
    const locked = await login('127.0.28.200', uiPassword)
    expect(locked.status, 'the right password from a new address while the account is locked').to.equal(429)
    expect((await login('127.0.28.100', uiPassword)).status, 'the right password from the address the owner used before').to.equal(200)

    // The owner's login cleared the account; a second attack (fresh addresses) locks it again.
    await attack(21)
    const fresh = await login('127.0.28.201', uiPassword)
    expect(fresh.status, 'the right password from a new address while the account is locked').to.equal(429)
    expect(fresh.retryAfter).to.be.within(1, 60)
    // Doing what the answer says: wait Retry-After, then try again.
    await delay(fresh.retryAfter * 1000 + 200)
    expect((await login('127.0.28.201', uiPassword)).status, 'the right password after Retry-After').to.equal(200)
  })
})

describe('security: failed logins for made-up user names never lock the owner out (issue 39 #3, real daemon, attacker as nobody)', function () {
  this.timeout(60_000)
  let daemon: RunningDaemon

  before(async () => {
    daemon = await startOneFileDaemon('sec-madeup-')
  })
  after(async () => {
    await daemon?.stop()
  })

  /** What a local user does: curl from 127.0.0.1, as the unprivileged user nobody. */
  const curlLogin = (username: string, password: string) =>
    new Promise<Answer>((resolve, reject) => {
      const body = JSON.stringify({ username, password })
      const args = ['--reuid=nobody', '--regid=nogroup', '--clear-groups', 'curl', '-s', '-o', '/dev/null', '-w', '%{http_code} %header{retry-after}']
      const curl = spawn('setpriv', [...args, '-H', 'content-type: application/json', '--data-binary', body, `${daemon.url}/api/v1/auth/login`])
      let out = ''
      curl.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
      curl.once('error', (err) => reject(new Error(`curl as nobody needs setpriv and curl: ${err.message}`)))
      curl.once('close', (code) => {
        if (code !== 0) return reject(new Error(`curl as nobody exited with ${code} (needs setpriv and curl)`))
        const [status, retryAfter] = out.trim().split(' ')
        resolve({ status: Number(status), retryAfter: Number(retryAfter || 0) })
      })
    })

  it('10 wrong logins for a made-up name from 127.0.0.1 limit that name only: the owner logs in from 127.0.0.1 at once', async () => {
    // At once, as an attacker would (the daemon hashes two at a time, each counted before its hash).
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => curlLogin('nosuchuser', `guess ${i}`)))
    expect(answers.map((a) => a.status)).to.deep.equal(Array(10).fill(401))
    const limited = await curlLogin('nosuchuser', 'guess 10')
    expect(limited.status, 'the made-up name is limited like any other').to.equal(429)
    expect(limited.retryAfter).to.be.within(1, 900)
    // The owner, from the same address (a browser on this machine), right password.
    const owner = await fetch(`${daemon.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: uiUser, password: uiPassword }),
    })
    expect(owner.status, await owner.clone().text()).to.equal(200)
  })

  it('the owner’s browser (Chromium) keeps a budget of its own when a local user spends the real name’s from 127.0.0.1; a browser never logged in waits', async () => {
    const browser = await launchBrowser()
    try {
      const owner = await browser.newContext({ baseURL: daemon.url })
      const page = await owner.newPage()
      await page.goto('/login')
      await logInWithKeyboard(page)
      await page.waitForURL((url) => url.pathname === '/')
      await page.getByRole('button', { name: 'Log out' }).click()
      await page.waitForURL(/\/login$/)
      // nobody knows the account's name: ten wrong passwords for it from the owner's address.
      const guesses = await Promise.all(Array.from({ length: 10 }, (_, i) => curlLogin(uiUser, `guess ${i}`)))
      expect(guesses.map((a) => a.status)).to.deep.equal(Array(10).fill(401))
      expect((await curlLogin(uiUser, uiPassword)).status, 'the name is limited at 127.0.0.1').to.equal(429)
      await logInWithKeyboard(page)
      await page.waitForURL((url) => url.pathname === '/')
      await page.locator('tr[data-job="j"]').waitFor()
      // A browser that never logged in shares the address's budget for the name, and says to wait.
      const stranger = await (await browser.newContext({ baseURL: daemon.url })).newPage()
      await stranger.goto('/login')
      await logInWithKeyboard(stranger)
      await stranger.getByRole('alert').filter({ hasText: 'Too many attempts' }).waitFor()
    } finally {
      await browser.close()
    }
  })
})

describe('security: a flood of made-up names cannot push the account’s counts out of the bounded limits (issue 39 #3)', () => {
  let real: RealEngine
  before(async () => (real = await realEngine()))
  after(() => real?.close())

  it('the account stays limited after more made-up names than either limit keeps', async () => {
    // Tables of 4 entries: before, 8 made-up names pushed the account's address window and lock out.
    const app = createApp({
      config: testConfig(),
      engine: real.engine,
      loginLimits: { maxFailures: 3, maxClients: 4 },
      accountLimits: { freeFailures: 3, maxEntries: 4 },
    })
    const login = async (username: string, password: string) => (await postJson(app, '/api/v1/auth/login', { username, password })).status
    for (let i = 0; i < 3; i++) expect(await login(testUser, `wrong ${i}`)).to.equal(401)
    expect(await login(testUser, testPassword), 'the account is limited').to.equal(429)
    for (let i = 0; i < 8; i++) expect(await login(`madeup${i}`, 'wrong'), `madeup${i}`).to.equal(401)
    expect(await login(testUser, testPassword), 'still limited after the flood').to.equal(429)
    expect(await login(testUser, 'wrong again')).to.equal(429)
  })

  it('an address the owner logged in from is trusted for every name alike: no name tells itself the real one there', async () => {
    const app = createApp({ config: testConfig(), engine: real.engine, accountLimits: { freeFailures: 3 } })
    // The socket peer as @hono/node-server gives it (`clientAddress`).
    const from = async (address: string, username: string, password = 'a wrong password') => {
      const incoming = { socket: { remoteAddress: address }, headers: {} }
      const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) }
      return (await app.request('/api/v1/auth/login', init, { incoming })).status
    }
    expect(await from('127.0.39.1', testUser, testPassword)).to.equal(200)
    for (const name of ['madeup2', testUser]) {
      // The account lock, from three other addresses (one failure each).
      for (let i = 2; i <= 4; i++) expect(await from(`127.0.39.${i}`, name), `${name} from 127.0.39.${i}`).to.equal(401)
      expect(await from('127.0.39.5', name), `${name} is locked`).to.equal(429)
      expect(await from('127.0.39.1', name), `${name} from the owner’s address`).to.equal(401)
    }
  })
})

describe('security: the device cookie of a browser that logged in (issue 39 #3, in-process: every request from one address)', () => {
  let real: RealEngine
  before(async () => (real = await realEngine()))
  after(() => real?.close())

  const limits = { loginLimits: { maxFailures: 3 }, accountLimits: { freeFailures: 3 } }
  const login = async (app: ReturnType<typeof createApp>, password: string, cookie?: string) => {
    const res = await postJson(app, '/api/v1/auth/login', { username: testUser, password }, cookie ? { cookie } : {})
    return { status: res.status, cookies: res.headers.getSetCookie().map((c) => c.split(';')[0]!) }
  }

  it('keeps its own budget and passes the account lock; a forged, foreign or stale one does not; it is no session', async () => {
    const app = createApp({ config: testConfig(), engine: real.engine, ...limits })
    const first = await login(app, testPassword)
    const device = first.cookies.find((c) => c.startsWith(`${deviceCookieName}=`))!
    expect(device, 'set at the login').to.be.a('string')
    // Someone else at the same address spends the name's budget and locks the account.
    for (let i = 0; i < 3; i++) expect((await login(app, `guess ${i}`)).status).to.equal(401)
    expect((await login(app, testPassword)).status, 'the address is limited').to.equal(429)
    const again = await login(app, testPassword, device)
    expect(again.status, 'the browser that logged in').to.equal(200)
    expect(again.cookies, 'the same device, refreshed').to.include(device)

    const [id, mac] = device.slice(deviceCookieName.length + 1).split('.')
    const forged = [`${deviceCookieName}=${id}.${mac!.slice(0, -2)}AA`, `${deviceCookieName}=other.${mac}`, `${deviceCookieName}=${id}`]
    for (const cookie of forged) expect((await login(app, testPassword, cookie)).status, cookie).to.equal(429)
    // Another key (a new random one after a restart with an empty server.secret): void.
    const other = createApp({ config: testConfig(), engine: real.engine, sessionKey: new TextEncoder().encode('another key, another key, 32 b!!'), ...limits })
    for (let i = 0; i < 3; i++) await login(other, `guess ${i}`)
    expect((await login(other, testPassword, device)).status, 'under another key').to.equal(429)
    // It opens nothing: neither as itself nor as a session cookie.
    for (const cookie of [device, `backup_session=${device.slice(deviceCookieName.length + 1)}`]) {
      expect((await app.request('/api/v1/jobs', { headers: { cookie } })).status, cookie).to.equal(401)
    }
  })

  it('is limited itself: its wrong passwords spend its own budget only', async () => {
    const app = createApp({ config: testConfig(), engine: real.engine, ...limits })
    const device = (await login(app, testPassword)).cookies.find((c) => c.startsWith(`${deviceCookieName}=`))!
    for (let i = 0; i < 3; i++) expect((await login(app, `typo ${i}`, device)).status).to.equal(401)
    expect((await login(app, testPassword, device)).status, 'the device’s budget is spent').to.equal(429)
    expect((await login(app, testPassword)).status, 'the address still has its own').to.equal(200)
  })
})

describe('security: the per-account back-off', () => {
  it('locks after the free failures, doubles each lock up to maxLockMs and never beyond; trusted addresses pass', () => {
    const limiter = accountLoginLimiter({ freeFailures: 2, firstLockMs: 15_000, maxLockMs: 60_000 })
    expect(limiter.reserve('u', 'a', 0)).to.equal(0)
    expect(limiter.reserve('u', 'b', 0)).to.equal(0)
    expect(limiter.reserve('u', 'c', 1)).to.equal(15)
    const waits: number[] = []
    let now = 0
    for (let i = 0; i < 6; i++) {
      now += limiter.reserve('u', 'x', now) * 1000
      expect(limiter.reserve('u', 'x', now), 'the lock has ended').to.equal(0)
      waits.push(limiter.reserve('u', 'y', now))
    }
    expect(waits).to.deep.equal([30, 60, 60, 60, 60, 60])
    limiter.succeeded('u', 'owner')
    expect(limiter.reserve('u', 'z', now)).to.equal(0)
    limiter.reserve('u', 'z', now)
    expect(limiter.reserve('u', 'z', now)).to.equal(15)
    expect(limiter.reserve('u', 'owner', now), 'an address that logged in before').to.equal(0)
  })
})
