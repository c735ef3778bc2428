/**
 * The dev-app's CMS: images on the storage host, videos on the streaming host, posts that use both,
 * a global, and the OpenAPI description of it all.
 */
import path from 'node:path'
import { buildConfig, type Config } from 'payload'
import { lexicalEditor } from '@payloadcms/richtext-lexical'
import { sqliteAdapter } from '@payloadcms/db-sqlite'
import { mongooseAdapter } from '@payloadcms/db-mongodb'
import sharp from 'sharp'

import { Images } from './collections/Images.js'
import { Posts } from './collections/Posts.js'
import { Users } from './collections/Users.js'
import { Videos } from './collections/Videos.js'
import { SiteSettings } from './globals/SiteSettings.js'
import { isMongo, settings } from './settings.js'

function database(): Config['db'] {
  if (isMongo) return mongooseAdapter({ url: settings.databaseUri })
  return sqliteAdapter({ client: { url: settings.databaseUri } })
}

export default buildConfig({
  serverURL: settings.serverURL,
  secret: settings.payloadSecret,
  admin: {
    user: Users.slug,
    importMap: { baseDir: path.join(settings.appRoot, 'src') },
  },
  collections: [Users, Images, Videos, Posts],
  globals: [SiteSettings],
  editor: lexicalEditor(),
  db: database(),
  sharp,
  typescript: { outputFile: path.join(settings.appRoot, 'src', 'payload-types.ts') },
  plugins: [],
})
