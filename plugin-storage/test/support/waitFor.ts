/**
 * @module test/support/waitFor
 * Waits for an event (a webhook's effect, an encoding step) by polling, within a generous deadline: a slow
 * machine makes the wait longer, never the test wrong.
 */

/** Polls `probe` every 100 ms until it answers something other than `undefined`; fails naming `what` after `ms`. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out after ${ms / 1000} s waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}
