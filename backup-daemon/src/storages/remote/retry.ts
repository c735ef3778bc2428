/**
 * @module storages/remote/retry
 * Retries one remote call with exponential backoff and jitter while its error is transient (5xx,
 * 429, connection resets, timeouts), giving every attempt its own timeout. A permanent error (4xx,
 * a missing object, the caller's abort) is thrown at once.
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
  /** Called before each retry (for logs and tests). */
  onRetry?: (err: unknown, attempt: number) => void
}

/** Error codes of Node sockets and undici that mean "try again". */
const transientCodes = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN', 'ENOTFOUND', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CLOSED'])

/** An upstream answered with an HTTP status; `transient` for 5xx and 429. */
export class UpstreamStatusError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
    this.name = 'UpstreamStatusError'
  }
  get transient(): boolean {
    return this.status >= 500 || this.status === 429 || this.status === 408
  }
}

/** Thrown when one attempt exceeded `timeoutMs`. */
export class AttemptTimeoutError extends Error {
  constructor(ms: number) {
    super(`remote call timed out after ${ms} ms`)
    this.name = 'AttemptTimeoutError'
  }
}

export function isTransient(err: unknown): boolean {
  if (err instanceof UpstreamStatusError) return err.transient
  if (err instanceof AttemptTimeoutError) return true
  const e = err as { code?: string; cause?: { code?: string }; name?: string; $metadata?: { httpStatusCode?: number } } | undefined
  if (!e) return false
  if (e.code && transientCodes.has(e.code)) return true
  if (e.cause?.code && transientCodes.has(e.cause.code)) return true
  // fetch wraps socket failures in a TypeError("fetch failed") with the cause above; a bare one is a network failure too.
  if (e.name === 'TypeError' && (err as Error).message === 'fetch failed') return true
  const status = e.$metadata?.httpStatusCode
  return status !== undefined && (status >= 500 || status === 429)
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
 * const listing = await retry((signal) => fetch(url, { signal }), { timeoutMs: 30_000 })
 */
export async function retry<T>(call: (signal: AbortSignal) => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const { retries = 4, baseDelayMs = 250, maxDelayMs = 8000, timeoutMs = 60_000, signal, onRetry } = options
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
      if (attempt >= retries || !isTransient(failure)) throw failure
      onRetry?.(failure, attempt + 1)
      const delay = Math.min(maxDelayMs, baseDelayMs * 2 ** attempt) * (0.75 + Math.random() * 0.5)
      await sleep(delay, undefined, signal ? { signal } : undefined)
    } finally {
      clearTimeout(timer)
    }
  }
}
