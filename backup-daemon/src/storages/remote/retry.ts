/**
 * @module storages/remote/retry
 * Retries one remote call with exponential backoff and jitter while its error is transient, giving
 * every attempt its own timeout. Which errors are transient is the backend's call (`isRetryable`, the
 * storage's own classification: retry never parses provider errors); an attempt that ran out of time
 * is always retried, anything else (a missing object, refused credentials, the caller's abort) is
 * thrown at once.
 */
import { setTimeout as sleep } from 'node:timers/promises'

export interface RetryOptions {
  /** Attempts after the first. @default 4 */
  retries?: number
  /** Delay before the first retry in ms, doubled each time (±25 % jitter). @default 250 */
  baseDelayMs?: number
  /** Cap of one delay in ms. @default 8000 */
  maxDelayMs?: number
  /** Time limit of one attempt in ms (the attempt's signal aborts). @default 60000 */
  timeoutMs?: number
  /** The caller's signal: stops retrying and aborts the attempt in flight. */
  signal?: AbortSignal
  /** Whether a failure may succeed when repeated (a storage passes its `isRetryable`). @default never */
  isRetryable?: (err: unknown) => boolean
  /** Called before each retry (for logs and tests). */
  onRetry?: (err: unknown, attempt: number) => void
}

/** Thrown when one attempt exceeded `timeoutMs` (always worth another attempt). */
export class AttemptTimeoutError extends Error {
  constructor(ms: number) {
    super(`remote call timed out after ${ms} ms`)
    this.name = 'AttemptTimeoutError'
  }
}

function rejectOnAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason)
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true })
  })
}

/**
 * Runs `call(attemptSignal)` until it succeeds, fails permanently or the retries are used up.
 * @example
 * const listing = await retry((signal) => fetch(url, { signal }), { timeoutMs: 30_000, isRetryable: storage.isRetryable })
 */
export async function retry<T>(call: (signal: AbortSignal) => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const { retries = 4, baseDelayMs = 250, maxDelayMs = 8000, timeoutMs = 60_000, signal, isRetryable = () => false, onRetry } = options
  for (let attempt = 0; ; attempt++) {
    signal?.throwIfAborted()
    const timeout = new AbortController()
    const timer = setTimeout(() => timeout.abort(new AttemptTimeoutError(timeoutMs)), timeoutMs)
    const attemptSignal = signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal
    try {
      // Race the signal too: a call that ignores it still cannot hang the caller past the timeout.
      return await Promise.race([call(attemptSignal), rejectOnAbort(attemptSignal)])
    } catch (err) {
      if (signal?.aborted) throw signal.reason
      const failure = timeout.signal.aborted ? timeout.signal.reason : err
      if (attempt >= retries || !(failure instanceof AttemptTimeoutError || isRetryable(failure))) throw failure
      onRetry?.(failure, attempt + 1)
      const delay = Math.min(maxDelayMs, baseDelayMs * 2 ** attempt) * (0.75 + Math.random() * 0.5)
      await sleep(delay, undefined, signal ? { signal } : undefined)
    } finally {
      clearTimeout(timer)
    }
  }
}
