/**
 * @module storages/remote/isNetworkError
 * Failures of the connection itself (reset, refused, DNS, socket timeouts) as Node sockets and undici
 * report them: the same call may well succeed a moment later. Backends use it in their `isRetryable`.
 */

/** Error codes of Node sockets and undici that mean "try again". */
const networkCodes = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
])

export function isNetworkError(err: unknown): boolean {
  const e = err as { code?: unknown; cause?: { code?: unknown }; name?: string; message?: string } | undefined
  if (!e || typeof e !== 'object') return false
  if (typeof e.code === 'string' && networkCodes.has(e.code)) return true
  if (typeof e.cause?.code === 'string' && networkCodes.has(e.cause.code)) return true
  // fetch wraps socket failures in a TypeError("fetch failed") with the cause above; a bare one is a network failure too.
  return e.name === 'TypeError' && e.message === 'fetch failed'
}
