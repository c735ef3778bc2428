import path from 'node:path'
import type { CollectionConfig } from 'payload'
import { dataDir, ownFileHosts } from '../settings.js'

/** Images on the storage host, resized into three sizes, uploaded browser-direct (client uploads). */
export const Images: CollectionConfig = {
  slug: 'images',
  access: { read: () => true },
  admin: { useAsTitle: 'alt' },
  upload: {
    // Only used when the storage plugin is off: files then stay in the data folder.
    staticDir: path.join(dataDir, 'media', 'images'),
    mimeTypes: ['image/*'],
    // Duplicating a document fetches its file from these hosts (settings.ts).
    skipSafeFetch: ownFileHosts,
    imageSizes: [
      { name: 'thumbnail', width: 320, height: 240, position: 'centre' },
      { name: 'card', width: 768, height: undefined },
      { name: 'hero', width: 1600, height: undefined },
    ],
    adminThumbnail: 'thumbnail',
  },
  fields: [{ name: 'alt', type: 'text', required: true }],
}
