/**
 * @module storages/remote/withRetries
 * A decorator over any `Storage`: every call that can be repeated safely (list, open, delete,
 * downloadUrl, commit, discard) goes through `retry`, with a timeout per attempt. Whether a failure is
 * worth another attempt is asked of the decorated backend (`isRetryable`): the decorator knows no
 * provider's errors. `write` is passed
 * through untouched: its body is a one-shot stream, so a backend retries inside it where it can
 * (the S3 SDK retries single parts; the host storage spools locally and uploads in `commit`).
 */
import type { Readable } from 'node:stream'
import type { PendingObject, Storage, StoredObject } from '../types.js'
import { retry, type RetryOptions } from './retry.js'

type WithRetriesOptions = Omit<RetryOptions, 'signal' | 'isRetryable'> & {
  /** Time limit of a commit (it may upload a whole part). @default 1 hour */
  commitTimeoutMs?: number
}

export class RetryingStorage implements Storage {
  readonly type: string
  readonly name: string
  readonly canStream: boolean
  readonly downloadUrl?: (key: string) => Promise<string | undefined>
  private readonly options: RetryOptions & { commitTimeoutMs?: number }

  constructor(
    private readonly inner: Storage,
    options: WithRetriesOptions = {},
  ) {
    this.options = { ...options, isRetryable: (err) => inner.isRetryable(err) }
    this.type = inner.type
    this.name = inner.name
    this.canStream = inner.canStream
    const downloadUrl = inner.downloadUrl?.bind(inner)
    if (downloadUrl) this.downloadUrl = (key) => retry(() => downloadUrl(key), this.options)
  }

  /** The decorated storage (like restic's `Unwrap()`). */
  unwrap(): Storage {
    return this.inner
  }

  async write(dir: string, body: Readable, signal: AbortSignal): Promise<PendingObject> {
    const pending = await this.inner.write(dir, body, signal)
    const commitOptions = { ...this.options, timeoutMs: this.options.commitTimeoutMs ?? 3_600_000 }
    return {
      size: pending.size,
      commit: (key) => retry(() => pending.commit(key), commitOptions),
      discard: () => retry(() => pending.discard(), this.options),
    }
  }

  list(prefix: string): Promise<StoredObject[]> {
    return retry(() => this.inner.list(prefix), this.options)
  }

  open(key: string): Promise<Readable> {
    return retry(() => this.inner.open(key), this.options)
  }

  delete(key: string): Promise<void> {
    return retry(() => this.inner.delete(key), this.options)
  }

  isNotExist(err: unknown): boolean {
    return this.inner.isNotExist(err)
  }

  isRetryable(err: unknown): boolean {
    return this.inner.isRetryable(err)
  }
}

/** Wraps `storage` in `RetryingStorage`. */
export function withRetries(storage: Storage, options?: WithRetriesOptions): Storage {
  return new RetryingStorage(storage, options)
}
