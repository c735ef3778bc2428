/**
 * @module upstream/upstreamFetch
 * `fetch` for calls to the host: a network failure becomes an {@link UpstreamError} (status 0).
 */
import { UpstreamError } from '../errors.js'

/** Runs `fetch` and turns network failures into an {@link UpstreamError}. */
export async function upstreamFetch(operation: string, url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init)
  } catch (err) {
    throw new UpstreamError(operation, 0, { cause: err })
  }
}
