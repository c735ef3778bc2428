/**
 * @module storages/all
 * Every storage type the daemon knows, by the config's `type`. Adding a backend: one file exporting a
 * `StorageFactory`, one line here, and a test that runs `runStorageSuite` against it.
 */
import type { StorageConfig } from '../config/types.js'
import { hostStorage } from './host/index.js'
import { localStorage } from './local.js'
import { s3Storage } from './s3/index.js'
import { sftpStorage } from './sftp/index.js'
import { webdavStorage } from './webdav/index.js'
import type { Storage, StorageContext, StorageFactory } from './types.js'

export const storageFactories: StorageFactory<any>[] = [localStorage, hostStorage, s3Storage, sftpStorage, webdavStorage]

export function storageFactory(type: string): StorageFactory | undefined {
  return storageFactories.find((factory) => factory.type === type)
}

export function createStorage(config: StorageConfig, context?: StorageContext): Storage {
  const factory = storageFactory(config.type)
  if (!factory) throw new Error(`unknown storage type "${config.type}"`)
  return factory.create(config, context)
}
