/**
 * @module archive/jobStorage
 * A job's storage together with where the job's snapshots live in it. `includeJobName` is a config
 * key of every storage entry (default true: `<path>/<job>/`; false: `<path>/` shared by several jobs),
 * but the `Storage` interface has no place for it; the engine's and the CLI's storages are built here,
 * which remembers the setting per storage object, so every catalog function (listing, writes, retention,
 * leftovers) finds it from the storage alone. A storage built elsewhere uses the default layout.
 */
import type { StorageConfig } from '../config/types.js'
import { createStorage } from '../storages/all.js'
import type { Storage, StorageContext } from '../storages/types.js'
import { jobLayout, type JobLayout } from '../repository/archives/layout.js'

const includeJobName = new WeakMap<Storage, boolean>()

/** `createStorage`, remembering the entry's `includeJobName` (absent = true). */
export function createJobStorage(config: StorageConfig, context?: StorageContext): Storage {
  const storage = createStorage(config, context)
  includeJobName.set(storage, (config as { includeJobName?: boolean }).includeJobName !== false)
  return storage
}

/** Marks a storage built some other way (tests, tools). */
export function setIncludeJobName(storage: Storage, value: boolean): Storage {
  includeJobName.set(storage, value)
  return storage
}

/** Where job `job`'s snapshots are in `storage`. */
export function layoutIn(storage: Storage, job: string): JobLayout {
  return jobLayout(job, includeJobName.get(storage) ?? true)
}
