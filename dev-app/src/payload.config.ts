/**
 * The dev-app's CMS: images on the storage host, videos on the streaming host, posts that use both,
 * a global, and the OpenAPI description of it all.
 */
import path from 'node:path'
import { buildConfig } from 'payload'
import { lexicalEditor } from '@payloadcms/richtext-lexical'
import sharp from 'sharp'
import { hostStoragePlugin, type StorageHostPluginOptions } from '@hosted-media/plugin-storage'
import { openapiPlugin } from '@hosted-media/plugin-openapi'

import { Documents } from './collections/Documents.js'
import { Images } from './collections/Images.js'
import { Posts } from './collections/Posts.js'
import { PrivateVideos } from './collections/PrivateVideos.js'
import { Users } from './collections/Users.js'
import { Videos } from './collections/Videos.js'
import { SiteSettings } from './globals/SiteSettings.js'
import { databaseAdapter } from './database/databaseAdapter.js'
import { mailFolderAdapter } from './email/mailFolderAdapter.js'
import { devAppLogger } from './logging/devAppLogger.js'
import { settings } from './settings.js'

// The AWS SDK (the storage host's S3 endpoint) warns on Node 20, at the first upload, that its releases after
// January 2027 will need Node 22. The dev-app pins its SDK in package-lock.json and supports Node 20.19+
// (README), so the notice says nothing about this setup; plugin-storage's README records it for apps.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true'

/**
 * The storage plugin's options; `start/remapRestoredVideos.ts` resolves them for `remapStreamVideos`. Two
 * storage zones (images in the top-level one, documents in their own) and two video libraries (public videos in
 * the top-level one, private videos in their own), each complete with its keys: one webhook endpoint serves both
 * libraries, routed by `VideoLibraryId`.
 */
export const storagePluginOptions: StorageHostPluginOptions = {
  collections: {
    images: 'storage',
    videos: 'stream',
    documents: {
      target: 'storage',
      zone: {
        zoneName: settings.documents.zoneName,
        accessKey: settings.documents.accessKey,
        region: settings.storage.region,
        endpoint: settings.storage.endpoint,
        s3Endpoint: settings.storage.s3Endpoint,
        cdnUrl: settings.documents.cdnUrl,
        clientUploads: true,
      },
    },
    'private-videos': {
      target: 'stream',
      library: {
        libraryId: settings.privateStream.libraryId,
        apiKey: settings.privateStream.apiKey,
        apiBase: settings.stream.apiBase,
        tusEndpoint: settings.stream.tusEndpoint,
        cdnUrl: settings.privateStream.cdnUrl,
        mp4Fallback: settings.stream.mp4Fallback,
        thumbnailTime: 2000,
        tus: true,
        webhook: { secret: settings.privateStream.readOnlyKey },
      },
    },
  },
  storage: {
    zoneName: settings.storage.zoneName,
    accessKey: settings.storage.accessKey,
    region: settings.storage.region,
    endpoint: settings.storage.endpoint,
    s3Endpoint: settings.storage.s3Endpoint,
    cdnUrl: settings.storage.cdnUrl,
    ...(settings.storage.tokenAuthKey ? { tokenAuth: { key: settings.storage.tokenAuthKey } } : {}),
    clientUploads: true,
  },
  stream: {
    libraryId: settings.stream.libraryId,
    apiKey: settings.stream.apiKey,
    apiBase: settings.stream.apiBase,
    tusEndpoint: settings.stream.tusEndpoint,
    cdnUrl: settings.stream.cdnUrl,
    mp4Fallback: settings.stream.mp4Fallback,
    thumbnailTime: 2000,
    tus: true,
    webhook: { secret: settings.stream.readOnlyKey },
  },
}

export default buildConfig({
  serverURL: settings.serverURL,
  secret: settings.payloadSecret,
  admin: {
    user: Users.slug,
    // No gravatar: the admin panel makes no request to the internet.
    avatar: 'default',
    importMap: { baseDir: path.join(settings.appRoot, 'src') },
  },
  collections: [Users, Images, Videos, Documents, PrivateVideos, Posts],
  globals: [SiteSettings],
  editor: lexicalEditor(),
  // Mails (password resets) go to files under the data folder: there is no mail server here.
  email: mailFolderAdapter(path.join(settings.dataDir, 'mail')),
  db: databaseAdapter(settings.databaseUri),
  // A client's error (a wrong password, an invalid field) is one line, not a stack (logging/devAppLogger.ts).
  logger: devAppLogger,
  sharp,
  // Types are generated on demand (`payload generate:types`), not on every development start.
  typescript: { autoGenerate: false, outputFile: path.join(settings.appRoot, 'src', 'payload-types.ts') },
  // tus-auth answers 413 above this.
  upload: { limits: { fileSize: 5 * 1024 ** 3 } },
  plugins: [
    hostStoragePlugin(storagePluginOptions),
    // Describes the sanitized config on first request, the storage plugin's endpoints (custom.openapi) included.
    openapiPlugin({ info: { title: 'Hosted-media demo CMS', version: '1.0.0' } }),
  ],
})
