import path from 'node:path'
import type { CollectionConfig } from 'payload'
import { dataDir, ownFileHosts } from '../settings.js'

/**
 * Videos for signed-in members in a video library of their own, apart from the public videos: the plugin's
 * per-collection `library` (payload.config.ts), with its own keys and webhook secret.
 */
export const PrivateVideos: CollectionConfig = {
  slug: 'private-videos',
  access: { read: ({ req }) => Boolean(req.user) },
  admin: { useAsTitle: 'title' },
  upload: {
    // Only used when the storage plugin is off: files then stay in the data folder.
    staticDir: path.join(dataDir, 'media', 'private-videos'),
    mimeTypes: ['video/*'],
    // Duplicating a document fetches its file from these hosts (settings.ts).
    skipSafeFetch: ownFileHosts,
  },
  fields: [{ name: 'title', type: 'text', required: true }],
}
