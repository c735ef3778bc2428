import { expect } from 'chai'
import { loginRateLimiter } from '../../src/auth/loginRateLimiter.js'
import { signSession, verifySession } from '../../src/auth/sessionToken.js'
import { verifiedTokens } from '../../src/auth/verifiedTokens.js'
import { sessionKey } from '../../src/auth/sessionKey.js'

describe('api: auth building blocks', () => {
  it('loginRateLimiter blocks after maxFailures until the window ends, per client, and forgets on success', () => {
    const limiter = loginRateLimiter({ maxFailures: 2, windowMs: 10_000 })
    limiter.failed('a', 0)
    expect(limiter.retryAfter('a', 1)).to.equal(0)
    limiter.failed('a', 1_000)
    expect(limiter.retryAfter('a', 1_000)).to.equal(9)
    expect(limiter.retryAfter('b', 1_000)).to.equal(0)
    expect(limiter.retryAfter('a', 10_000)).to.equal(0)
    limiter.failed('c', 0)
    limiter.failed('c', 0)
    limiter.succeeded('c')
    expect(limiter.retryAfter('c', 1)).to.equal(0)
  })

  it('loginRateLimiter keeps at most maxClients addresses', () => {
    const limiter = loginRateLimiter({ maxFailures: 1, windowMs: 60_000, maxClients: 2 })
    limiter.failed('a', 0)
    limiter.failed('b', 0)
    limiter.failed('c', 0)
    expect(limiter.retryAfter('a', 1)).to.equal(0)
    expect(limiter.retryAfter('c', 1)).to.be.greaterThan(0)
  })

  it('verifiedTokens forgets a token once it has expired and evicts the oldest beyond its size', () => {
    const memo = verifiedTokens(2)
    const claims = (exp: number) => ({ sub: 'u', exp, sid: 's', authTime: 0 })
    memo.remember('t1', claims(100))
    expect(memo.get('t1', 99)).to.deep.equal(claims(100))
    expect(memo.get('t1', 100)).to.equal(undefined)
    memo.remember('t2', claims(200))
    memo.remember('t3', claims(200))
    memo.remember('t4', claims(200))
    expect(memo.get('t2', 0)).to.equal(undefined)
    expect(memo.get('t4', 0)).to.not.equal(undefined)
  })

  it('session tokens: HS256 with sub and exp; refused with another key, user or after expiry', async () => {
    const key = sessionKey('a secret')
    // One fixed clock for signing and checking: the expiry is exact, whatever time the test runs at.
    const now = Date.UTC(2026, 10, 21, 3, 0, 0)
    const token = await signSession({ key, username: 'admin', minutes: 1, now })
    const header = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString())
    expect(header.alg).to.equal('HS256')
    const claims = await verifySession(token, key, 'admin', now + 1_000)
    expect(claims!.sub).to.equal('admin')
    expect(claims!.exp).to.equal(now / 1000 + 60)
    expect(await verifySession(token, key, 'admin', now + 59_000), 'a second before expiry').to.not.equal(undefined)
    expect(await verifySession(token, key, 'admin', now + 60_000), 'at expiry').to.equal(undefined)
    expect(await verifySession(token, sessionKey('another secret'), 'admin', now)).to.equal(undefined)
    expect(await verifySession(token, key, 'someone', now)).to.equal(undefined)
    const old = await signSession({ key, username: 'admin', minutes: 1, now: now - 120_000 })
    expect(await verifySession(old, key, 'admin', now)).to.equal(undefined)
    // An unsigned token ("alg": "none") is never accepted.
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${token.split('.')[1]}.`
    expect(await verifySession(none, key, 'admin', now)).to.equal(undefined)
    expect(sessionKey('')).to.have.length(32)
    expect(Buffer.from(sessionKey(''))).not.to.deep.equal(Buffer.from(sessionKey('')))
  })
})
