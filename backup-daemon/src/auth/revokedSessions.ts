/**
 * @module auth/revokedSessions
 * Sessions ended by a logout, per process (a restart with a random `server.secret` already ends them
 * all; with a fixed secret a restart forgets the list, documented). Keyed by the session ID (`sid`), so
 * every token refreshed from one login is refused; an entry lives until the latest moment any of
 * its tokens could expire, then it is dropped. Checked after the verified-token memo, so a cached token
 * is refused too.
 */

export interface RevokedSessions {
  /** Refuses `sid` until `untilSeconds` (epoch seconds). */
  revoke(sid: string, untilSeconds: number, nowSeconds?: number): void
  has(sid: string, nowSeconds?: number): boolean
  readonly size: number
}

/** @param max entries kept; only a logged-in user can add one, so the bound is a safety net. */
export function revokedSessions(max = 10_000): RevokedSessions {
  const until = new Map<string, number>()
  const sweep = (now: number) => {
    for (const [sid, end] of until) if (end <= now) until.delete(sid)
  }
  return {
    revoke(sid, untilSeconds, nowSeconds = Date.now() / 1000) {
      if (until.size >= max) sweep(nowSeconds)
      // Still full of live entries: forget the oldest revocation rather than grow without bound.
      if (until.size >= max) until.delete(until.keys().next().value as string)
      until.set(sid, Math.max(untilSeconds, until.get(sid) ?? 0))
    },
    has(sid, nowSeconds = Date.now() / 1000) {
      const end = until.get(sid)
      if (end === undefined) return false
      if (end <= nowSeconds) {
        until.delete(sid)
        return false
      }
      return true
    },
    get size() {
      return until.size
    },
  }
}
