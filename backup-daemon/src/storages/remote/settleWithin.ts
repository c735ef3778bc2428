/**
 * @module storages/remote/settleWithin
 * Waits for best-effort clean-up (removing a temporary object after a failed or cancelled upload)
 * at most `ms`: a server that stopped answering must not hold a failing run or a cancel up. What is
 * still running goes on in the background (bounded by its own timeouts); the engine's leftover sweep
 * removes what it could not.
 */

/** `done` or `failed` when `work` settled within `ms`, `late` otherwise; never rejects. */
export async function settleWithin(work: Promise<unknown>, ms: number): Promise<'done' | 'failed' | 'late'> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(resolve, Math.max(0, ms), 'late')))
  try {
    return await Promise.race([
      work.then(
        () => 'done' as const,
        () => 'failed' as const,
      ),
      late,
    ])
  } finally {
    clearTimeout(timer)
  }
}

/** The clean-up bound of a storage with `timeout` (ms): a third of it, 10 s at most (the cancel bound, README). */
export function cleanupBoundMs(timeoutMs: number): number {
  return Math.min(10_000, timeoutMs / 3)
}
