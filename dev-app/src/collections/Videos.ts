import path from 'node:path'
import type { CollectionConfig } from 'payload'
import { dataDir, ownFileHosts } from '../settings.js'

/** Videos on the streaming host, uploaded from the browser through TUS and encoded by the host. */
export const Videos: CollectionConfig = {
  slug: 'videos',
  access: { read: () => true },
  admin: { useAsTitle: 'title' },
  upload: {
    // Only used when the storage plugin is off: files then stay in the data folder.
    staticDir: path.join(dataDir, 'media', 'videos'),
    mimeTypes: ['video/*'],
    // Duplicating a document fetches its file from these hosts (settings.ts).
    skipSafeFetch: ownFileHosts,
  },
  fields: [{ name: 'title', type: 'text', required: true }],
}
