/**
 * @module sources/hostStream/forEachLimited
 * Runs a task over a list, a bounded number at a time (API calls per video, uploads of a restore).
 */

/** Runs `task` over `items`, `limit` at a time; the first failure stops new tasks and is thrown once the others settled. */
export async function forEachLimited<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  let failed = false
  const worker = async () => {
    while (next < items.length && !failed) {
      try {
        await task(items[next++]!)
      } catch (err) {
        failed = true
        throw err
      }
    }
  }
  const results = await Promise.allSettled(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker))
  const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')
  if (failure) throw failure.reason
}
