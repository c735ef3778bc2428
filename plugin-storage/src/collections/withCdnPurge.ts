/**
 * @module collections/withCdnPurge
 * Storage collections with `storage.purge`: the CDN URLs of replaced and deleted files are purged, after
 * plugin-cloud-storage wrote or deleted them (its hooks come first in the lists).
 */
import { purgeCdnUrlsHooks } from '../hooks/purgeCdnUrls.js'
import type { ResolvedStorage } from '../options/resolveOptions.js'
import type { CollectionExtension } from './collectionExtension.js'

export function withCdnPurge(storage: ResolvedStorage): CollectionExtension {
  return function cdnPurge({ collection, target }) {
    if (!storage.purge || target.target !== 'storage') return collection
    const hooks = purgeCdnUrlsHooks(storage, target)
    return {
      ...collection,
      hooks: {
        ...collection.hooks,
        afterChange: [...(collection.hooks?.afterChange ?? []), hooks.afterChange],
        afterDelete: [...(collection.hooks?.afterDelete ?? []), hooks.afterDelete],
      },
    }
  }
}
