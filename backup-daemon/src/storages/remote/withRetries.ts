/**
 * @module storages/remote/withRetries
 * A decorator over any `Storage`: every call that can be repeated safely (list, open, delete,
 * downloadUrl, commit, discard) goes through `retry`, with a timeout per attempt. `write` is passed
 * through untouched: its body is a one-shot stream, so a backend retries inside it where it can
 * (the S3 SDK retries single parts; the host storage spools locally and uploads in `commit`).
 */
import type { Readable } from 'node:stream'
import type { PendingObject, Storage, StoredObject } from '../types.js'
import { retry, type RetryOptions } from './retry.js'

export class RetryingStorage implements Storage {
  readonly type: string
  readonly name: string
  readonly canStream: boolean
  readonly downloadUrl?: (key: string) => Promise<string | undefined>

  constructor(
    private readonly inner: Storage,
    private readonly options: Omit<RetryOptions, 'signal'> & {
      /** Time limit of a commit (it may upload a whole part). @default 1 hour */
      commitTimeoutMs?: number
    } = {},
  ) {
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
}

/** Wraps `storage` in `RetryingStorage`. */
export function withRetries(storage: Storage, options?: ConstructorParameters<typeof RetryingStorage>[1]): Storage {
  return new RetryingStorage(storage, options)
}
