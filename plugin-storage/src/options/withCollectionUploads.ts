/**
 * @module options/withCollectionUploads
 * What the resolved options learn from the app's collections, before any hook is built: each targeted
 * collection must be an upload collection, and a stream collection's own `upload.mimeTypes` is enforced by
 * the plugin (tus-auth, bind hook), since Payload never sees the bytes.
 */
import type { CollectionConfig } from 'payload'

import type { ResolvedCollection, ResolvedOptions } from './resolveOptions.js'

/** New options whose stream targets carry their collection's `upload.mimeTypes`; throws on a targeted collection without `upload`. */
export function withCollectionUploads(options: ResolvedOptions, collections: readonly CollectionConfig[]): ResolvedOptions {
  const targets = new Map<string, ResolvedCollection>(options.collections)
  for (const collection of collections) {
    const target = options.collections.get(collection.slug)
    if (!target) continue
    if (!collection.upload) throw new Error(`storage-host plugin: collection "${collection.slug}" is not an upload collection`)
    const mimeTypes = typeof collection.upload === 'object' ? collection.upload.mimeTypes : undefined
    if (target.target === 'stream' && mimeTypes?.length) targets.set(collection.slug, { ...target, mimeTypes })
  }
  return { ...options, collections: targets }
}
