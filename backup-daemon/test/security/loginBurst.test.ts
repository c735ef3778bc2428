/**
 * Login limits under concurrency, against a real daemon process: a burst of wrong passwords from one
 * address reaches the password hash at most `maxFailures` times (attempts are reserved before hashing),
 * the rest are 429 with Retry-After, the right password is refused while the limit holds, and an API
 * read served during the burst still answers. The hash concurrency cap is checked in process.
 */
import { expect } from 'chai'
import { concurrencyGate, GateFullError } from '../../src/auth/concurrencyGate.js'
import { loginRateLimiter } from '../../src/auth/loginRateLimiter.js'
import { startOneFileDaemon, uiPassword, uiUser, type RunningDaemon } from '../ui/support/realDaemon.js'

/** The daemon's default `maxFailures` (createApp's loginLimits). */
const maxFailures = 10

describe('security: login rate limit holds under a concurrent burst (real daemon)', function () {
  this.timeout(120_000)
  let daemon: RunningDaemon

  before(async () => {
    daemon = await startOneFileDaemon('sec-login-')
  })
  after(async () => {
    await daemon?.stop()
  })

  const login = (password: string) =>
    fetch(`${daemon.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: uiUser, password }),
    })

  it('100 concurrent wrong logins: maxFailures reach the hash (401), the rest 429 + Retry-After; the right password is then refused; a GET still answers', async () => {
    const first = await login(uiPassword)
    expect(first.status).to.equal(200)
    const cookie = first.headers.get('set-cookie')!.split(';')[0]!

    const wrong = Array.from({ length: 100 }, (_, i) => login(`wrong password ${i}`))
    const read = fetch(`${daemon.url}/api/v1/jobs/j/backups`, { headers: { cookie } })
    // Once one guess was refused the limit is full; the right password sent now must be refused too.
    const refusedOnce = Promise.race(wrong.map((p) => p.then((r) => (r.status === 429 ? true : new Promise<boolean>(() => {})))))
    const allDone = Promise.all(wrong).then(() => false)
    expect(await Promise.race([refusedOnce, allDone]), 'no guess was refused during the burst').to.equal(true)
    const right = await login(uiPassword)

    const answers = await Promise.all(wrong)
    const statuses = answers.map((r) => r.status)
    expect(statuses.filter((s) => s === 401)).to.have.length(maxFailures)
    expect(statuses.filter((s) => s === 429)).to.have.length(100 - maxFailures)
    for (const r of answers.filter((a) => a.status === 429)) expect(Number(r.headers.get('retry-after'))).to.be.greaterThan(0)
    expect(right.status).to.equal(429)
    expect(Number(right.headers.get('retry-after'))).to.be.greaterThan(0)
    expect(right.headers.get('set-cookie')).to.equal(null)
    expect((await read).status).to.equal(200)
  })
})

describe('security: login building blocks under concurrency', () => {
  it('reserve counts the attempt before the hash, release gives it back, success clears it', () => {
    const limiter = loginRateLimiter({ maxFailures: 2, windowMs: 10_000 })
    expect(limiter.reserve('a', 0)).to.equal(0)
    expect(limiter.reserve('a', 0)).to.equal(0)
    expect(limiter.reserve('a', 0)).to.equal(10)
    limiter.release('a', 0)
    expect(limiter.reserve('a', 0)).to.equal(0)
    limiter.succeeded('a')
    expect(limiter.retryAfter('a', 0)).to.equal(0)
  })

  it('the hash gate runs at most max tasks at once, queues maxWaiting, refuses the rest', async () => {
    const gate = concurrencyGate({ max: 2, maxWaiting: 3 })
    let running = 0
    let peak = 0
    const finishers: (() => void)[] = []
    const task = () =>
      new Promise<string>((resolve) => {
        running += 1
        peak = Math.max(peak, running)
        finishers.push(() => {
          running -= 1
          resolve('done')
        })
      })
    const results = Array.from({ length: 7 }, () =>
      gate.run(task).then(
        (v) => v,
        (e: Error) => e,
      ),
    )
    await new Promise((r) => setImmediate(r))
    expect(finishers).to.have.length(2)
    const refused = await Promise.all(results.slice(5))
    for (const r of refused) expect(r).to.be.instanceOf(GateFullError)
    while (finishers.length) {
      finishers.shift()!()
      await new Promise((r) => setImmediate(r))
    }
    expect(await Promise.all(results.slice(0, 5))).to.deep.equal(Array(5).fill('done'))
    expect(peak).to.equal(2)
    expect(gate.running).to.equal(0)
  })
})
