/**
 * @module errors
 * The package's two error types, in one module at the bottom of the import graph: every folder imports
 * it, and it imports nothing from the package (test/importGraph.test.ts checks both).
 *
 * `HttpError` is the only error that becomes an answer (a 413 body limit included), through
 * `endpoints/withErrors`; `UpstreamError` describes a failed call to the host and is never shown as it is.
 */

/** An error whose status and message are safe to show to the caller. */
export class HttpError extends Error {
  readonly status: number

  constructor(status: number, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'HttpError'
    this.status = status
  }
}

/**
 * A failed call to the storage or streaming host. The message names the operation and the HTTP status
 * only: never a key, never the upstream body (it may echo secrets).
 */
export class UpstreamError extends Error {
  /** HTTP status of the upstream answer, or 0 when the host could not be reached. */
  readonly status: number

  constructor(operation: string, status: number, options?: { cause?: unknown }) {
    super(status ? `${operation} failed: the host answered HTTP ${status}` : `${operation} failed: the host could not be reached`, options)
    this.name = 'UpstreamError'
    this.status = status
  }

  /** True for "the object is not there" (restic-style classification: callers never parse statuses). */
  isNotFound(): boolean {
    return this.status === 404
  }
}
