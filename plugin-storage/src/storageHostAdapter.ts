/**
 * @module storageHostAdapter
 * The plugin as a storage adapter of Payload 4's top-level `storage` key, which such a core reads in
 * place of storage plugins (`buildConfig` calls each adapter's `init`). A 3.x core has no such key:
 * there the same options go to {@link storageHostPlugin} in `plugins`.
 */
import type { Config } from 'payload'

import { storageHostPlugin } from './plugin.js'
import type { StorageHostPluginOptions } from './types.js'

/** What Payload 4 expects in `storage` (its `StorageAdapter`; the typings installed here are 3.x's). */
export interface StorageHostAdapter {
  /** `storage-host`, also shown in Payload's `upload.adapters`. */
  name: string
  /** The upload collections the plugin handles. */
  collections: string[]
  init: (config: Config) => Config
}

/**
 * @example
 * ```ts
 * export default buildConfig({
 *   storage: [storageHostAdapter({ collections: { media: 'storage', videos: 'stream' }, storage: { ... }, stream: { ... } })],
 * })
 * ```
 */
export function storageHostAdapter(options: StorageHostPluginOptions): StorageHostAdapter {
  return {
    name: 'storage-host',
    collections: Object.keys(options.collections).filter((slug) => options.collections[slug as keyof typeof options.collections]),
    init: storageHostPlugin(options),
  }
}
