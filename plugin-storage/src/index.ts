/**
 * @module @hosted-media/plugin-storage
 * Payload plugin: files on the storage host, videos on the streaming host. See README.md.
 */
export { hostStoragePlugin, storageHostPlugin } from './plugin.js'
export { storageHostAdapter, type StorageHostAdapter } from './storageHostAdapter.js'
export { sweepOrphanUploads } from './cleanup/sweepOrphanUploads.js'
export { sweepOrphanVideos } from './cleanup/sweepOrphanVideos.js'
export { remapStreamVideos } from './restore/remapStreamVideos.js'
export { rewriteStoredUrls, storageHostUrlsAtReadTime, type RewriteResult } from './migrations/urlsAtReadTime.js'
export type { RemapStreamVideosOptions, RemapStreamVideosResult, RemappedDocument } from './restore/remapStreamVideos.js'
export { HostDataField } from './fields/hostDataField.js'
export { resolveOptions } from './options/resolveOptions.js'
export { STORAGE_UPLOAD_PATH, TUS_AUTH_PATH, WEBHOOK_PATH } from './constants.js'
export type * from './types.js'
