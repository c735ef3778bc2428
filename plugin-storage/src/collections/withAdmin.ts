/**
 * @module collections/withAdmin
 * What editors see of their media, added to each targeted collection by the plugin (when it is enabled):
 * - previews: `upload.adminThumbnail` of stream collections (the host's thumbnail) and of storage
 *   collections with image sizes and a CDN (the thumbnail size on the CDN, signed with token auth);
 *   an app's own adminThumbnail function is kept; list columns starting with the file's preview unless the
 *   app chose its own;
 * - the video panel (encoding status refreshed live, then the player) as a `ui` field of each stream
 *   collection, in the main column under the upload; list columns starting with the file's preview
 *   unless the app chose its own;
 * - internal storage fields (`_objectKey`) out of list columns, filters and pickers;
 * The components' strings are merged into `config.i18n.translations` by plugin.ts (admin/mergeTranslations).
 */
import type { CollectionConfig, Field } from 'payload'

import type { CollectionExtension } from './collectionExtension.js'
import { hideInternalStorageFields } from '../fields/internalStorageFields.js'
import type { ResolvedStream } from '../options/resolveOptions.js'
import { storageThumbnail, thumbnailSizeName, videoThumbnail } from '../admin/adminThumbnails.js'
import { CLIENT_PATH } from '../admin/clientPath.js'

/** Name of the video panel's `ui` field (no data: the database schema does not change). */
export const VIDEO_PANEL_FIELD = 'hostVideoPanel'

/** The file (its preview), the title when there is one, then the last change. */
const listColumns = (collection: CollectionConfig): string[] => [
  'filename',
  ...(collection.admin?.useAsTitle ? [collection.admin.useAsTitle] : []),
  'updatedAt',
]

function streamCollection(collection: CollectionConfig, library: ResolvedStream): CollectionConfig {
  const upload = typeof collection.upload === 'object' ? collection.upload : {}
  const hasPanel = collection.fields.some((f) => 'name' in f && f.name === VIDEO_PANEL_FIELD)
  const panel: Field = {
    name: VIDEO_PANEL_FIELD,
    type: 'ui',
    admin: { disableListColumn: true, components: { Field: { clientProps: { collectionSlug: collection.slug }, path: `${CLIENT_PATH}#VideoPanel` } } },
  }
  // Without columns chosen by the app, the list starts with the file (its preview), then the title.
  const defaultColumns = collection.admin?.defaultColumns ?? listColumns(collection)
  return {
    ...collection,
    admin: { ...collection.admin, defaultColumns },
    fields: hasPanel ? collection.fields : [panel, ...collection.fields],
    upload: { ...upload, adminThumbnail: typeof upload.adminThumbnail === 'function' ? upload.adminThumbnail : videoThumbnail(library) },
  }
}

/** The admin parts of one targeted collection, once the upload wiring added its internal fields. */
export function withAdmin({ apiRoute }: { apiRoute: string } = { apiRoute: '/api' }): CollectionExtension {
  return function admin({ collection, target }) {
    const storageCollection = hideInternalStorageFields(collection)
    if (target.stream) return streamCollection(storageCollection, target.stream)
    const upload = typeof collection.upload === 'object' ? collection.upload : {}
    const sizeName = thumbnailSizeName(upload)
    if (!target.storage?.cdnUrl || !sizeName) return storageCollection
    return {
      ...storageCollection,
      // As for videos: without columns chosen by the app, the list starts with the file (its thumbnail).
      admin: { ...storageCollection.admin, defaultColumns: storageCollection.admin?.defaultColumns ?? listColumns(storageCollection) },
      upload: { ...upload, adminThumbnail: storageThumbnail(target.storage, target, sizeName, apiRoute) },
    }
  }
}
