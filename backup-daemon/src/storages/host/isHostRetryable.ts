/**
 * @module storages/host/isHostRetryable
 * Which failures of the storage host's API are worth another attempt: 5xx, 429, 408 and failed
 * connections (hostApi turns its own timeouts into `ETIMEDOUT`). Shared by the `host` storage and the
 * `host` source, which talk to the same API.
 */
import { isNetworkError } from '../remote/isNetworkError.js'
import { UpstreamStatusError } from '../remote/UpstreamStatusError.js'

export function isHostRetryable(err: unknown): boolean {
  return (err instanceof UpstreamStatusError && err.transient) || isNetworkError(err)
}
