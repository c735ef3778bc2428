/**
 * @module auth/loginLimits
 * Both login limits (per address and user name, `auth/loginRateLimiter`; per user name whatever the
 * address, `auth/accountLoginLimiter`), kept twice: once for the configured account's name and once for
 * every other name tried. Failures for made-up names (any local user shares 127.0.0.1 with the owner)
 * never spend the account's budget (issue 39 #3); and since each limit forgets its oldest entries
 * beyond a bound, a flood of made-up names would otherwise push the account's own counts and locks out,
 * giving the guesser a fresh budget for the real name: they fill the other names' tables only. Both sides
 * limit alike, so the answers do not tell the real name from the others.
 */
import { accountLoginLimiter, type AccountLoginLimiter, type AccountLoginLimiterOptions } from './accountLoginLimiter.js'
import { loginRateLimiter, type LoginRateLimiter, type LoginRateLimiterOptions } from './loginRateLimiter.js'

/** One side's two limits. */
export interface LoginLimitPair {
  /** Keyed by the client address and the user name tried. */
  perAddress: LoginRateLimiter
  /** Keyed by the user name tried. */
  perAccount: AccountLoginLimiter
}

export interface LoginLimits {
  /** The limits of the configured account's name (`true`) or of the other names (`false`). */
  of(isAccount: boolean): LoginLimitPair
}

export function loginLimits(perAddress?: LoginRateLimiterOptions, perAccount?: AccountLoginLimiterOptions): LoginLimits {
  // An address where the owner logged in is trusted for every name: were it trusted for the real name only,
  // a name locked from elsewhere that still passes there would be the real one.
  const trusted = new Map<string, true>()
  const pair = (): LoginLimitPair => ({ perAddress: loginRateLimiter(perAddress), perAccount: accountLoginLimiter(perAccount, trusted) })
  const account = pair()
  const otherNames = pair()
  return { of: (isAccount) => (isAccount ? account : otherNames) }
}
