/**
 * @module storages/remote/lazyStorage
 * A `Storage` whose implementation is loaded on its first use: the AWS SDK costs ~25 MiB of memory
 * and startup time that a daemon should only pay when a job actually talks to S3.
 */
import type { Readable } from 'node:stream'
import type { PendingObject, Storage, StoredObject } from '../types.js'

export interface LazyStorageInfo {
  type: string
  name: string
  canStream: boolean
  /** Whether the loaded storage has `downloadUrl`. */
  downloadUrl: boolean
  /** Must not need the implementation (it is synchronous). */
  isNotExist(err: unknown): boolean
  /** Must not need the implementation either. */
  isRetryable(err: unknown): boolean
}

export function lazyStorage(info: LazyStorageInfo, load: () => Promise<Storage>): Storage {
  let loading: Promise<Storage> | undefined
  const inner = () => (loading ??= load())
  return {
    type: info.type,
    name: info.name,
    canStream: info.canStream,
    write: async (dir: string, body: Readable, signal: AbortSignal): Promise<PendingObject> => (await inner()).write(dir, body, signal),
    list: async (prefix: string): Promise<StoredObject[]> => (await inner()).list(prefix),
    open: async (key: string): Promise<Readable> => (await inner()).open(key),
    delete: async (key: string): Promise<void> => (await inner()).delete(key),
    ...(info.downloadUrl ? { downloadUrl: async (key: string) => (await inner()).downloadUrl?.(key) } : {}),
    isNotExist: info.isNotExist,
    isRetryable: info.isRetryable,
  }
}
