/**
 * @module collections/withCdnPurge
 * Storage collections whose zone has `purge`: the CDN URLs of replaced and deleted files are purged, after
 * the upload hooks wrote or deleted them (its hooks come first in the lists).
 */
import { purgeCdnUrlsHooks } from '../hooks/purgeCdnUrls.js'
import type { CollectionExtension } from './collectionExtension.js'

export function withCdnPurge(): CollectionExtension {
  return function cdnPurge({ collection, target }) {
    const storage = target.storage
    if (!storage?.purge) return collection
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
