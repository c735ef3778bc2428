/**
 * @module storages/s3/isS3Retryable
 * Transient S3 failures: the service answered 5xx, 429 (SlowDown) or 408, or the connection failed.
 * Kept apart from `S3Storage` so the lazily loaded storage can answer without loading the SDK.
 */
import { isNetworkError } from '../remote/isNetworkError.js'

export function isS3Retryable(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } } | undefined
  const status = e?.$metadata?.httpStatusCode
  if (status !== undefined) return status >= 500 || status === 429 || status === 408
  return e?.name === 'TimeoutError' || e?.name === 'RequestTimeout' || isNetworkError(err)
}
