/**
 * @module auth/sessionEnds
 * When a session ends, for what outlives a request: a log, progress or task stream opened with a
 * session must end when that session is logged out or expires, not keep delivering lines after it.
 *
 * A session lives until its newest token expires: every verified request and every refreshed cookie
 * tells `seen` the expiry of a token of that session (`sid`), and a watch re-arms its timer for as long
 * as a newer token exists. A logout (`end`) ends every watch of the session at once.
 */

export interface SessionEnds {
  /** A token of `sid` valid until `exp` (epoch seconds) exists. */
  seen(sid: string, exp: number): void
  /** The session was logged out: its watches end now. */
  end(sid: string): void
  /** Calls `onEnd` once when `sid` is logged out or its newest token has expired; returns the cancel. */
  watch(sid: string, onEnd: () => void): () => void
}

/** setTimeout's limit (about 24.8 days); a longer wait is re-armed. */
const maxDelay = 2 ** 31 - 1

/**
 * @param clock milliseconds since the epoch (the app's session clock). @default Date.now
 * @param max sessions remembered; the oldest are forgotten first (a watch of a forgotten one ends at its own check).
 */
export function sessionEnds(clock: () => number = Date.now, max = 10_000): SessionEnds {
  const expiries = new Map<string, number>()
  const watchers = new Map<string, Set<() => void>>()
  return {
    seen(sid, exp) {
      const known = expiries.get(sid)
      if (known !== undefined && known >= exp) return
      expiries.delete(sid)
      if (expiries.size >= max) expiries.delete(expiries.keys().next().value as string)
      expiries.set(sid, exp)
    },
    end(sid) {
      expiries.delete(sid)
      for (const onEnd of [...(watchers.get(sid) ?? [])]) onEnd()
    },
    watch(sid, onEnd) {
      let timer: NodeJS.Timeout | undefined
      let done = false
      const set = watchers.get(sid) ?? new Set()
      watchers.set(sid, set)
      const stop = () => {
        done = true
        clearTimeout(timer)
        set.delete(finish)
        if (set.size === 0 && watchers.get(sid) === set) watchers.delete(sid)
      }
      function finish() {
        if (done) return
        stop()
        onEnd()
      }
      const arm = () => {
        const left = (expiries.get(sid) ?? 0) * 1000 - clock()
        if (left <= 0) return finish()
        timer = setTimeout(arm, Math.min(left + 50, maxDelay))
        timer.unref()
      }
      set.add(finish)
      arm()
      return stop
    },
  }
}
