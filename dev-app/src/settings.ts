/**
 * @module settings
 * Every setting of the dev-app, read from the environment in one place. Defaults point at the local
 * host emulator and an embedded SQLite file, so `npm start` needs no account anywhere; setting the
 * variables switches each part to the real thing (see README.md).
 */
import path from 'node:path'
import { databaseKind } from './database/databaseKind.js'
import { ports } from './ports.js'

const appRoot = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..')

const env = (name: string, fallback: string): string => process.env[name] || fallback

export const dataDir = path.resolve(env('DEV_APP_DATA_DIR', path.join(appRoot, '.data')))

const bindAddress = env('BIND_ADDRESS', '127.0.0.1')
/** Host part of a URL reaching a server on `bindAddress` from this machine (loopback for "every interface"). */
export const reachableHost = bindAddress === '0.0.0.0' || bindAddress === '::' ? '127.0.0.1' : bindAddress.includes(':') ? `[${bindAddress}]` : bindAddress

const emulatorUrl = env('EMULATOR_URL', `http://${reachableHost}:${ports.emulator}`)

export const settings = {
  appRoot,
  dataDir,
  /**
   * Address the CMS, the backup daemon and the emulator listen on: loopback only, so nothing of this
   * unhardened development setup (generated passwords, the emulator's fixed keys) is reachable from
   * the network. `BIND_ADDRESS=0.0.0.0` opens them to every interface (e.g. inside a container).
   */
  bindAddress,
  serverURL: env('CMS_URL', `http://localhost:${ports.cms}`),
  /** Signs CMS sessions, video tokens and client-upload receipts. The start script generates one per data folder. */
  payloadSecret: env('PAYLOAD_SECRET', 'dev-app-insecure-secret-change-me'),
  /** `mongodb://…` switches to @payloadcms/db-mongodb, `postgres://…` to @payloadcms/db-postgres; anything else is an SQLite file. */
  databaseUri: env('DATABASE_URI', `file:${path.join(dataDir, 'db', 'cms.db')}`),
  emulatorUrl,
  storage: {
    endpoint: env('HOST_STORAGE_ENDPOINT', `${emulatorUrl}/storage`),
    s3Endpoint: env('HOST_STORAGE_S3_ENDPOINT', `${emulatorUrl}/s3`),
    zoneName: env('HOST_STORAGE_ZONE', 'dev-zone'),
    accessKey: env('HOST_STORAGE_ACCESS_KEY', 'dev-storage-key'),
    region: env('HOST_STORAGE_REGION', 'de'),
    cdnUrl: env('HOST_STORAGE_CDN_URL', `${emulatorUrl}/cdn/dev-zone`),
    tokenAuthKey: process.env.HOST_STORAGE_CDN_TOKEN_KEY || undefined,
  },
  stream: {
    apiBase: env('HOST_STREAM_API_BASE', `${emulatorUrl}/stream`),
    tusEndpoint: env('HOST_STREAM_TUS_ENDPOINT', `${emulatorUrl}/tusupload`),
    libraryId: Number(env('HOST_STREAM_LIBRARY_ID', '1001')),
    apiKey: env('HOST_STREAM_API_KEY', 'dev-stream-key'),
    readOnlyKey: env('HOST_STREAM_READONLY_KEY', 'dev-stream-readonly-key'),
    cdnUrl: env('HOST_STREAM_CDN_URL', `${emulatorUrl}/stream-cdn/1001`),
    /** The plugin's `mp4Fallback`; `HOST_STREAM_MP4_FALLBACK=false` runs the plugin README's snippet (HLS only). */
    mp4Fallback: env('HOST_STREAM_MP4_FALLBACK', 'true') !== 'false',
  },
}

/** Which adapter the CMS uses and what the daemon's `cms` job backs up (see database/databaseKind.ts). */
export const databaseType = databaseKind(settings.databaseUri)
export const isMongo = databaseType === 'mongodb'
