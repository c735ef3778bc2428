/**
 * @module test/support/startCms
 * A real Payload (SQLite in a temp dir) with the plugin, served over real HTTP by a tiny node:http server
 * around `handleEndpoints` (no Next.js). Each CMS gets its own `payloadInstanceCacheKey`, so several
 * configs run side by side in one mocha process.
 */
import { randomUUID } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'

import { sqliteAdapter } from '@payloadcms/db-sqlite'
import { buildConfig, getPayload, handleEndpoints, type CollectionConfig, type Payload, type Plugin } from 'payload'
import sharp from 'sharp'
import type { RunningEmulator } from 'dev-app/emulator'

import { storageHostPlugin, storageHostAdapter } from '../../src/index.js'
import { coreHasUploadInstructions } from '../../src/payload/compat.js'
import { s3Credentials } from './s3Credentials.js'
import type { StorageHostPluginOptions } from '../../src/types.js'

export interface RunningCms {
  payload: Payload
  url: string
  /** JWT of the admin user (`Authorization: JWT <token>`). */
  token: string
  /** JWT of a second user (foreign-token tests). */
  otherToken: string
  fetch(path: string, init?: RequestInit & { auth?: string | false }): Promise<Response>
  close(): Promise<void>
}

/**
 * Fresh objects per CMS (Payload's sanitizer mutates collection configs in place), with local files (only
 * written when the plugin is disabled) kept in the CMS's temp dir.
 */
export const testCollections = (dir: string): CollectionConfig[] =>
  baseCollections().map((c) => (c.upload ? { ...c, upload: { ...(typeof c.upload === 'object' ? c.upload : {}), staticDir: join(dir, c.slug) } } : c))

const baseCollections = (): CollectionConfig[] => [
  { slug: 'users', auth: true, fields: [] },
  {
    slug: 'media',
    fields: [{ name: 'alt', type: 'text' }],
    upload: { imageSizes: [{ name: 'thumbnail', height: 40, width: 40 }], mimeTypes: ['image/*', 'application/pdf', 'text/plain'] },
  },
  { slug: 'videos', fields: [{ name: 'title', type: 'text' }], upload: { mimeTypes: ['video/mp4', 'video/webm', 'video/quicktime'] } },
  // Read-only for everyone but admins: access tests.
  { slug: 'locked-videos', access: { create: () => false, update: () => false }, fields: [{ name: 'title', type: 'text' }], upload: true },
  { slug: 'plain-files', fields: [], upload: true },
  { slug: 'posts', fields: [{ name: 'title', type: 'text' }] },
]

/** Plugin options pointing every upstream URL at the emulator. */
export function emulatorOptions(emu: RunningEmulator, extra: Partial<StorageHostPluginOptions> = {}): StorageHostPluginOptions {
  return {
    collections: { 'locked-videos': 'stream', media: 'storage', videos: 'stream' },
    storage: {
      accessKey: emu.storage.accessKey,
      cdnUrl: emu.storage.cdnUrl,
      clientUploads: { sweepInterval: 0 },
      endpoint: emu.storage.endpoint,
      region: emu.storage.region,
      s3Endpoint: emu.storage.s3Endpoint,
      serve: 'proxy',
      zoneName: emu.storage.zoneName,
    },
    stream: {
      apiBase: emu.stream.apiBase,
      apiKey: emu.stream.apiKey,
      cdnUrl: emu.stream.cdnUrl,
      libraryId: emu.stream.libraryId,
      mp4Fallback: true,
      thumbnailTime: 1500,
      tus: true,
      tusEndpoint: emu.stream.tusEndpoint,
      webhook: { secret: emu.stream.readOnlyKey },
    },
    ...extra,
  }
}

/** How an app adds the plugin: `storage: [...]` on a core with upload instructions (Payload 4), else `plugins: [...]`. */
export function pluginConfig(options: StorageHostPluginOptions): Record<string, unknown> {
  return coreHasUploadInstructions ? { storage: [storageHostAdapter(options)] } : { plugins: [storageHostPlugin(options)] }
}

export interface StartCmsOptions {
  fileSizeLimit?: number
  useTempFiles?: boolean
  /** Reuse this folder (database, local files) and keep it on close: a restart of an earlier CMS. */
  dataDir?: string
  /** The CMS secret (a restarted CMS must keep it: receipts and tokens are signed with it). */
  secret?: string
  /** Collections added to the test ones (e.g. one with other access rules). */
  extraCollections?: CollectionConfig[]
  /** The config's `serverURL` (the CLI's webhook check calls it). */
  serverURL?: string
  /** A PostgreSQL database in place of SQLite in the data folder (several CMS instances on one database). */
  databaseUri?: string
  /**
   * `media` kept by the official S3 adapter in this bucket, under `prefix`, and this plugin left out: a site
   * before the plugin (`migrate --from s3`).
   */
  s3Media?: { bucket: string; endpoint: string; prefix: string }
}

/** The official S3 adapter on `media`, imported only then (as the PostgreSQL adapter above). */
async function s3MediaPlugins(s3: NonNullable<StartCmsOptions['s3Media']>): Promise<Plugin[]> {
  const { s3Storage } = await import(/* webpackIgnore: true */ /* turbopackIgnore: true */ '@payloadcms/storage-s3')
  const config = { credentials: s3Credentials, endpoint: s3.endpoint, forcePathStyle: true, region: 'us-east-1' }
  return [s3Storage({ bucket: s3.bucket, collections: { media: { prefix: s3.prefix } }, config })]
}

/**
 * SQLite in `dir`, or PostgreSQL at `databaseUri`, imported only then: the Payload 4 project has no such
 * adapter, and its admin build (which bundles this file for `testCollections`) must not look for it.
 */
async function testDatabase(dir: string, databaseUri: string | undefined) {
  if (!databaseUri) return sqliteAdapter({ client: { url: `file:${join(dir, 'cms.db')}` } })
  const { postgresAdapter } = await import(/* webpackIgnore: true */ /* turbopackIgnore: true */ '@payloadcms/db-postgres')
  return postgresAdapter({ pool: { connectionString: databaseUri } })
}

/** The test CMS's config: the test collections, SQLite in `dir` (or PostgreSQL), the plugin (also what the CLI tests' config file exports). */
export async function testConfig(pluginOptions: StorageHostPluginOptions, dir: string, opts: StartCmsOptions & { secret: string }) {
  return buildConfig({
    collections: [...testCollections(dir), ...(opts.extraCollections ?? [])],
    db: await testDatabase(dir, opts.databaseUri),
    // Payload 4 reads storage adapters from the top-level `storage` key; Payload 3 has only `plugins`.
    ...(opts.s3Media ? { plugins: await s3MediaPlugins(opts.s3Media) } : pluginConfig(pluginOptions)),
    secret: opts.secret,
    ...(opts.serverURL ? { serverURL: opts.serverURL } : {}),
    sharp,
    logger: { options: { level: process.env.CMS_LOG_LEVEL ?? 'fatal' } },
    telemetry: false,
    typescript: { autoGenerate: false },
    upload: {
      ...(opts.fileSizeLimit ? { limits: { fileSize: opts.fileSizeLimit } } : {}),
      ...(opts.useTempFiles ? { tempFileDir: join(dir, 'tmp'), useTempFiles: true } : {}),
    },
  })
}

export async function startCms(pluginOptions: StorageHostPluginOptions, opts: StartCmsOptions = {}): Promise<RunningCms> {
  // drizzle skips the dev schema push when the schema equals the previous one *in this process*; every
  // test CMS has a fresh database file, so force it.
  process.env.PAYLOAD_FORCE_DRIZZLE_PUSH = 'true'
  const dir = opts.dataDir ?? (await mkdtemp(join(tmpdir(), 'plugin-storage-cms-')))
  const removeDir = () => (opts.dataDir ? Promise.resolve() : rm(dir, { force: true, recursive: true }))
  const key = `plugin-storage-${randomUUID()}`
  const config = await testConfig(pluginOptions, dir, { ...opts, secret: opts.secret ?? `test-secret-${key}` })
  let payload: Payload
  try {
    payload = await getPayload({ config, key, importMap: {} } as Parameters<typeof getPayload>[0])
  } catch (err) {
    await removeDir()
    throw err
  }

  const server: Server = createServer((req, res) => {
    void (async () => {
      const headers = new Headers()
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v)
      const hasBody = req.method !== 'GET' && req.method !== 'HEAD'
      const request = new Request(`http://${req.headers.host}${req.url}`, {
        body: hasBody ? (Readable.toWeb(req) as ReadableStream) : undefined,
        duplex: 'half',
        headers,
        method: req.method,
      } as RequestInit)
      const response = await handleEndpoints({ config: Promise.resolve(payload.config), payloadInstanceCacheKey: key, request } as never)
      const out: Record<string, string | string[]> = {}
      response.headers.forEach((value, name) => {
        if (name !== 'set-cookie') out[name] = value
      })
      const cookies = response.headers.getSetCookie()
      if (cookies.length) out['set-cookie'] = cookies
      res.writeHead(response.status, out)
      if (response.body) for await (const chunk of Readable.fromWeb(response.body as never)) res.write(chunk)
      res.end()
    })().catch((err: Error) => {
      if (!res.headersSent) res.writeHead(500)
      res.end(String(err.message))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`

  const login = async (email: string): Promise<string> => {
    const { totalDocs } = await payload.count({ collection: 'users', where: { email: { equals: email } } })
    if (totalDocs === 0) await payload.create({ collection: 'users', data: { email, password: 'secret-pass-1' } })
    const result = await payload.login({ collection: 'users', data: { email, password: 'secret-pass-1' } })
    return result.token!
  }
  const token = await login('admin@example.com')
  const otherToken = await login('other@example.com')

  return {
    payload,
    url,
    token,
    otherToken,
    fetch: (path, init = {}) => {
      const headers = new Headers(init.headers)
      if (init.auth !== false && !headers.has('authorization')) headers.set('Authorization', `JWT ${init.auth ?? token}`)
      return fetch(`${url}${path}`, { ...init, headers })
    },
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await payload.destroy()
      await removeDir()
    },
  }
}
