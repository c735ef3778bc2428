/**
 * @module test/support/waitFor
 * Polls `check` every half second until it holds; throws when it still does not after `timeoutMs`.
 */
export async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check()) return
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
  throw new Error(`condition not met within ${timeoutMs} ms`)
}
