import path from 'node:path'
import type { CollectionConfig } from 'payload'
import { dataDir, ownFileHosts } from '../settings.js'

/**
 * Files for members (PDFs, spreadsheets, archives) in a storage zone of their own, apart from the site's images:
 * the plugin's per-collection `zone` (payload.config.ts). Read by signed-in users only.
 */
export const Documents: CollectionConfig = {
  slug: 'documents',
  access: { read: ({ req }) => Boolean(req.user) },
  admin: { useAsTitle: 'title' },
  upload: {
    // Only used when the storage plugin is off: files then stay in the data folder.
    staticDir: path.join(dataDir, 'media', 'documents'),
    mimeTypes: ['application/pdf', 'text/plain', 'text/csv', 'application/zip', 'application/vnd.openxmlformats-officedocument.*'],
    // Duplicating a document fetches its file from these hosts (settings.ts).
    skipSafeFetch: ownFileHosts,
  },
  fields: [{ name: 'title', type: 'text', required: true }],
}
