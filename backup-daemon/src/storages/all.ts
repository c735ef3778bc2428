/**
 * @module storages/all
 * Every storage type the daemon knows, by the config's `type`. Adding a backend: one folder exporting a
 * `StorageFactory` (its config type is its schema's output), one entry in `registered` here, and a test
 * that runs `runStorageSuite` against it. The config's `StorageConfig` union is derived from this list.
 */
import { hostStorage } from './host/index.js'
import { localStorage } from './local.js'
import { resticStorage } from './restic/index.js'
import { s3Storage } from './s3/index.js'
import { sftpStorage } from './sftp/index.js'
import { webdavStorage } from './webdav/index.js'
import type { Storage, StorageContext, StorageEntryType } from './types.js'

const registered = [localStorage, hostStorage, s3Storage, sftpStorage, webdavStorage, resticStorage] as const

export const storageFactories: readonly StorageEntryType<any>[] = registered

/**
 * One `jobs[].storages[]` entry after parsing: the config type of whichever factory its `type` names,
 * plus `includeJobName`, which `config/schema.ts` adds to every type (always set by the loader; a
 * config built by hand may leave it out, which means true: read it as `includeJobName !== false`).
 */
export type StorageConfig = ((typeof registered)[number] extends infer F ? (F extends StorageEntryType<infer C> ? C : never) : never) & {
  includeJobName?: boolean
}

export function storageFactory(type: string): StorageEntryType | undefined {
  return storageFactories.find((factory) => factory.type === type)
}

export function createStorage(config: StorageConfig, context?: StorageContext): Storage {
  const factory = storageFactory(config.type)
  if (!factory) throw new Error(`unknown storage type "${config.type}"`)
  if (!factory.create) throw new Error(`storage "${config.name}" is a ${factory.repository ?? factory.type} repository, not an object store`)
  return factory.create(config, context)
}
