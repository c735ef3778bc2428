/**
 * Issue 28 item 1: the login limit holds per account, not only per address. A real daemon process gets
 * 10 wrong passwords from each of 20 loopback addresses (127.0.28.1-20, every one under its own
 * per-address limit): only the account's 10 free failures reach the password check, the other 190 are
 * 429 with Retry-After. What the owner then sees: from the address they logged in from before, the right
 * password logs in at once; from a new address it is 429 with a Retry-After of at most 60 s, and after
 * waiting that long it logs in.
 */
import { expect } from 'chai'
import { request } from 'node:http'
import { setTimeout as delay } from 'node:timers/promises'
import { accountLoginLimiter } from '../../src/auth/accountLoginLimiter.js'
import { startOneFileDaemon, uiPassword, uiUser, type RunningDaemon } from '../ui/support/realDaemon.js'

interface Answer {
  status: number
  retryAfter: number
}

describe('security: failed logins are limited per account, whatever the address (real daemon, 20 loopback addresses)', function () {
  this.timeout(120_000)
  let daemon: RunningDaemon

  before(async () => {
    daemon = await startOneFileDaemon('sec-account-')
  })
  after(async () => {
    await daemon?.stop()
  })

  /** POST /auth/login from the loopback address `from`. */
  const login = (from: string, password: string) =>
    new Promise<Answer>((resolve, reject) => {
      const body = JSON.stringify({ username: uiUser, password })
      const req = request(`${daemon.url}/api/v1/auth/login`, { method: 'POST', localAddress: from, headers: { 'content-type': 'application/json' } }, (res) => {
        res.resume()
        res.on('end', () => resolve({ status: res.statusCode!, retryAfter: Number(res.headers['retry-after'] ?? 0) }))
      })
      req.on('error', reject)
      req.end(body)
    })

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
