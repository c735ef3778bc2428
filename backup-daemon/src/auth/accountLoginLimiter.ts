/**
 * @module auth/accountLoginLimiter
 * The second login limit, per account (the user name tried), whatever the address: a local user has
 * every `127.x.y.z`, an IPv6 client a whole /64, so the per-address limit alone let 200 guesses from 20
 * addresses through.
 *
 * After `freeFailures` failed logins for one account within `windowMs`, the account is locked for
 * `firstLockMs`; each failure after a lock ends locks it again for twice as long, up to `maxLockMs`. A
 * guesser therefore gets one try per `maxLockMs` at best, and the owner never waits longer than
 * `maxLockMs` (the 429's `Retry-After` says how long).
 *
 * An address that logged in with the right password before (since the daemon started) is not held by the
 * account lock, only by its own per-address limit: a guesser hammering the account cannot keep the owner
 * out of a browser they already used. A success clears the account's count.
 */

export interface AccountLoginLimiterOptions {
  /** Failures per account before the first lock. @default 10 */
  freeFailures?: number
  /** A failure older than this is forgotten (with the lock length). @default 900000 (15 minutes) */
  windowMs?: number
  /** @default 15000 */
  firstLockMs?: number
  /** @default 60000 */
  maxLockMs?: number
  /** Accounts (and trusted addresses) tracked at once; the oldest are forgotten beyond it. @default 10000 */
  maxEntries?: number
}

export interface AccountLoginLimiter {
  /**
   * Counts one attempt for `account` from `client` as failed up front. Returns 0 when the password may be
   * checked, else the seconds to wait (nothing counted).
   */
  reserve(account: string, client: string, now?: number): number
  /** Gives back a reservation whose password was never checked. */
  release(account: string, now?: number): void
  /** The right password: clears the account and trusts `client` from now on. */
  succeeded(account: string, client: string): void
}

interface AccountState {
  failures: number
  lastFailure: number
  lockedUntil: number
  lockMs: number
}

/** Map with a size bound: the first key is the oldest (Map keeps insertion order). */
function boundedSet<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key)
  if (map.size >= max) map.delete(map.keys().next().value as string)
  map.set(key, value)
}

/** `trusted`: the addresses that logged in, shared by limiters that must trust alike (`auth/loginLimits`). */
export function accountLoginLimiter(
  { freeFailures = 10, windowMs = 15 * 60_000, firstLockMs = 15_000, maxLockMs = 60_000, maxEntries = 10_000 }: AccountLoginLimiterOptions = {},
  trusted = new Map<string, true>(),
): AccountLoginLimiter {
  const accounts = new Map<string, AccountState>()
  const current = (account: string, now: number) => {
    const s = accounts.get(account)
    if (s && now - s.lastFailure >= windowMs && now >= s.lockedUntil) {
      accounts.delete(account)
      return undefined
    }
    return s
  }
  return {
    reserve(account, client, now = Date.now()) {
      if (trusted.has(client)) return 0
      const s = current(account, now)
      if (s && now < s.lockedUntil) return Math.max(1, Math.ceil((s.lockedUntil - now) / 1000))
      if (!s) {
        boundedSet(accounts, account, { failures: 1, lastFailure: now, lockedUntil: 0, lockMs: 0 }, maxEntries)
        return 0
      }
      s.failures += 1
      s.lastFailure = now
      if (s.failures >= freeFailures) {
        // Locked from now on, in case this guess is wrong; a success clears it.
        s.lockMs = s.lockMs === 0 ? firstLockMs : Math.min(maxLockMs, s.lockMs * 2)
        s.lockedUntil = now + s.lockMs
      }
      return 0
    },
    release(account, now = Date.now()) {
      const s = current(account, now)
      if (s && s.failures > 0) s.failures -= 1
    },
    succeeded(account, client) {
      accounts.delete(account)
      boundedSet(trusted, client, true, maxEntries)
    },
  }
}
