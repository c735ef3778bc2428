/**
 * @module upstream/UpstreamError
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

/** Runs `fetch` and turns network failures into an {@link UpstreamError}. */
export async function upstreamFetch(operation: string, url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init)
  } catch (err) {
    throw new UpstreamError(operation, 0, { cause: err })
  }
}
