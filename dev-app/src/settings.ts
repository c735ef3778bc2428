/**
 * @module settings
 * Every setting of the dev-app, read from the environment in one place. Defaults point at the local
 * host emulator and an embedded SQLite file, so `npm start` needs no account anywhere; setting the
 * variables switches each part to the real thing (see README.md).
 */
import path from 'node:path'
import { databaseKind } from './database/databaseKind.js'
import { ports } from './ports.js'
import { readHostKeys, type HostKeys } from './start/credentials.js'

const appRoot = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..')

const env = (name: string, fallback: string): string => process.env[name] || fallback

export const dataDir = path.resolve(env('DEV_APP_DATA_DIR', path.join(appRoot, '.data')))

const bindAddress = env('BIND_ADDRESS', '127.0.0.1')
/** Host part of a URL reaching a server on `bindAddress` from this machine (loopback for "every interface"). */
export const reachableHost = bindAddress === '0.0.0.0' || bindAddress === '::' ? '127.0.0.1' : bindAddress.includes(':') ? `[${bindAddress}]` : bindAddress

const emulatorUrl = env('EMULATOR_URL', `http://${reachableHost}:${ports.emulator}`)

/** The second zone's name and the second library's id: each names its pull zone's URL too. */
const documentsZone = env('HOST_DOCUMENTS_ZONE', 'dev-documents')
const privateLibraryId = env('HOST_PRIVATE_STREAM_LIBRARY_ID', '1002')

const keysOf = new Map<string, HostKeys>()
/**
 * The host keys the parts use for the data folder `folder`: each `HOST_…` variable when set (the real
 * host), else the folder's own random ones (`start/credentials.ts`), read once when first needed, so a
 * process that never talks to the host (restore-site's own) needs none.
 */
export function hostKeys(folder = dataDir): HostKeys {
  let keys = keysOf.get(folder)
  if (!keys) {
    const fromEnv = {
      storageAccessKey: process.env.HOST_STORAGE_ACCESS_KEY,
      streamApiKey: process.env.HOST_STREAM_API_KEY,
      webhookSecret: process.env.HOST_STREAM_READONLY_KEY,
      documentsAccessKey: process.env.HOST_DOCUMENTS_ACCESS_KEY,
      privateStreamApiKey: process.env.HOST_PRIVATE_STREAM_API_KEY,
      privateWebhookSecret: process.env.HOST_PRIVATE_STREAM_READONLY_KEY,
    }
    const given = Object.values(fromEnv).every(Boolean)
    // Every key from the environment: no data folder needed (a CMS against the real host, a test's emulator).
    const stored = given ? undefined : readHostKeys(folder)
    keys = {
      storageAccessKey: fromEnv.storageAccessKey || stored!.storageAccessKey,
      streamApiKey: fromEnv.streamApiKey || stored!.streamApiKey,
      webhookSecret: fromEnv.webhookSecret || stored!.webhookSecret,
      accountApiKey: stored?.accountApiKey ?? '',
      documentsAccessKey: fromEnv.documentsAccessKey || stored!.documentsAccessKey,
      privateStreamApiKey: fromEnv.privateStreamApiKey || stored!.privateStreamApiKey,
      privateWebhookSecret: fromEnv.privateWebhookSecret || stored!.privateWebhookSecret,
    }
    keysOf.set(folder, keys)
  }
  return keys
}

export const settings = {
  appRoot,
  dataDir,
  /**
   * Address the CMS, the backup daemon and the emulator listen on: loopback only, so nothing of this
   * unhardened development setup (generated passwords printed on the console, no TLS) is reachable from
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
    /** `HOST_STORAGE_ACCESS_KEY`, else the data folder's random key. */
    get accessKey() {
      return hostKeys().storageAccessKey
    },
    region: env('HOST_STORAGE_REGION', 'de'),
    cdnUrl: env('HOST_STORAGE_CDN_URL', `${emulatorUrl}/cdn/dev-zone`),
    tokenAuthKey: process.env.HOST_STORAGE_CDN_TOKEN_KEY || undefined,
  },
  /** The second storage zone, the `documents` collection's: its own password and pull zone. */
  documents: {
    zoneName: documentsZone,
    /** `HOST_DOCUMENTS_ACCESS_KEY`, else the data folder's random key. */
    get accessKey() {
      return hostKeys().documentsAccessKey
    },
    cdnUrl: env('HOST_DOCUMENTS_CDN_URL', `${emulatorUrl}/cdn/${documentsZone}`),
  },
  stream: {
    apiBase: env('HOST_STREAM_API_BASE', `${emulatorUrl}/stream`),
    tusEndpoint: env('HOST_STREAM_TUS_ENDPOINT', `${emulatorUrl}/tusupload`),
    libraryId: Number(env('HOST_STREAM_LIBRARY_ID', '1001')),
    /** `HOST_STREAM_API_KEY`, else the data folder's random key. */
    get apiKey() {
      return hostKeys().streamApiKey
    },
    /** The webhook secret (the library's read-only key): `HOST_STREAM_READONLY_KEY`, else the data folder's random key. */
    get readOnlyKey() {
      return hostKeys().webhookSecret
    },
    cdnUrl: env('HOST_STREAM_CDN_URL', `${emulatorUrl}/stream-cdn/1001`),
    /** The plugin's `mp4Fallback`; `HOST_STREAM_MP4_FALLBACK=false` runs the plugin README's snippet (HLS only). */
    mp4Fallback: env('HOST_STREAM_MP4_FALLBACK', 'true') !== 'false',
  },
  /** The second video library, the `private-videos` collection's: its own keys, pull zone and webhook secret. */
  privateStream: {
    libraryId: Number(privateLibraryId),
    /** `HOST_PRIVATE_STREAM_API_KEY`, else the data folder's random key. */
    get apiKey() {
      return hostKeys().privateStreamApiKey
    },
    /** `HOST_PRIVATE_STREAM_READONLY_KEY`, else the data folder's random key. */
    get readOnlyKey() {
      return hostKeys().privateWebhookSecret
    },
    cdnUrl: env('HOST_PRIVATE_STREAM_CDN_URL', `${emulatorUrl}/stream-cdn/${privateLibraryId}`),
  },
}

/** Which adapter the CMS uses and what the daemon's `cms` job backs up (see database/databaseKind.ts). */
export const databaseType = databaseKind(settings.databaseUri)
export const isMongo = databaseType === 'mongodb'

/**
 * The hosts the CMS fetches its own files from: duplicating an image or a video reads the original by its URL
 * (the CMS's file route, which redirects to the emulator's CDN). They are on this machine, which Payload's safe
 * fetch refuses (500) unless the upload collection allowlists them (`upload.skipSafeFetch`).
 */
export const ownFileHosts = [settings.serverURL, settings.storage.cdnUrl, settings.documents.cdnUrl, settings.stream.cdnUrl, settings.privateStream.cdnUrl].map(
  (u) => {
    const url = new URL(u)
    return { hostname: url.hostname, ...(url.port ? { port: url.port } : {}) }
  },
)
