/**
 * @module auth/loginRateLimiter
 * Slows down password guessing: at most `maxFailures` failed logins per client within `windowMs`; after
 * that, that client's logins are refused with 429 until the window has passed. A successful login clears
 * the client's count. Memory is bounded: old windows are swept as they expire. The login route's client is
 * the address and the user name tried together, so failures for made-up names from an address the owner
 * shares (loopback) do not lock the owner's name out.
 *
 * A login reserves its attempt (`reserve`: counted as a failure) before the password is hashed, and a
 * success gives it back: checking first and counting after the hash let a burst of concurrent guesses
 * all pass the check while their hashes were still running.
 */

export interface LoginRateLimiterOptions {
  /** @default 10 */
  maxFailures?: number
  /** @default 900000 (15 minutes) */
  windowMs?: number
  /** Addresses tracked at once; the oldest are forgotten beyond it. @default 10000 */
  maxClients?: number
}

export interface LoginRateLimiter {
  /** Seconds until `client` may try again, or 0 when it may try now. */
  retryAfter(client: string, now?: number): number
  failed(client: string, now?: number): void
  /**
   * Counts one attempt as failed up front. Returns 0 when the attempt may go ahead (the password may be
   * checked), else the seconds to wait (nothing counted).
   */
  reserve(client: string, now?: number): number
  /** Gives back one reservation whose password was never checked (e.g. refused for load). */
  release(client: string, now?: number): void
  succeeded(client: string): void
}

export function loginRateLimiter({ maxFailures = 10, windowMs = 15 * 60_000, maxClients = 10_000 }: LoginRateLimiterOptions = {}): LoginRateLimiter {
  const windows = new Map<string, { start: number; failures: number }>()
  const current = (client: string, now: number) => {
    const w = windows.get(client)
    if (w && now - w.start >= windowMs) {
      windows.delete(client)
      return undefined
    }
    return w
  }
  return {
    retryAfter(client, now = Date.now()) {
      const w = current(client, now)
      return w && w.failures >= maxFailures ? Math.max(1, Math.ceil((w.start + windowMs - now) / 1000)) : 0
    },
    failed(client, now = Date.now()) {
      const w = current(client, now)
      if (w) w.failures += 1
      else {
        // Map keeps insertion order: the first key is the oldest window.
        if (windows.size >= maxClients) windows.delete(windows.keys().next().value as string)
        windows.set(client, { start: now, failures: 1 })
      }
    },
    reserve(client, now = Date.now()) {
      const wait = this.retryAfter(client, now)
      if (wait === 0) this.failed(client, now)
      return wait
    },
    release(client, now = Date.now()) {
      const w = current(client, now)
      if (w && w.failures > 0) w.failures -= 1
    },
    succeeded(client) {
      windows.delete(client)
    },
  }
}
