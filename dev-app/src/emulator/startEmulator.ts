/**
 * @module emulator/startEmulator
 * Starts the emulator: one node:http server, one handler per upstream, tried in order by prefix.
 */
import { statSync } from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { resolveInside } from './auth/resolveInside.js'
import { cdnPullZone } from './cdn/cdnPullZone.js'
import { purgeApi } from './cdn/purgeApi.js'
import { extractPathToken } from './cdn/pathToken.js'
import { resolveOptions } from './config/resolveOptions.js'
import type { EmulatorContext, UpstreamHandler } from './context.js'
import { describeEmulator } from './http/describeEmulator.js'
import { sendText } from './http/sendJson.js'
import { s3Endpoint } from './s3/s3Endpoint.js'
import { storageApi } from './storage/storageApi.js'
import { streamApi } from './stream/streamApi.js'
import { loadState, persistState } from './stream/persistState.js'
import { VideoStatus } from './stream/statuses.js'
import { streamCdn } from './stream/streamCdn.js'
import { CollectionStore } from './stream/CollectionStore.js'
import { toEmulatedVideo, VideoStore } from './stream/VideoStore.js'
import { addTenants, findVideo, tenantOf } from './tenants.js'
import { createTusEndpoint, TUS_PATH } from './tus/tusEndpoint.js'
import type { EmulatorOptions, RunningEmulator } from './types.js'

/**
 * Starts the host emulator and resolves once it listens.
 * @example
 * const emulator = await startEmulator({ stream: { webhookUrl: 'http://127.0.0.1:3000/api/storage-host/stream/webhook' } })
 * // point plugin options at emulator.storage.endpoint, emulator.stream.apiBase, emulator.stream.tusEndpoint ...
 * await emulator.close()
 */
export async function startEmulator(emulatorOptions: EmulatorOptions = {}): Promise<RunningEmulator> {
  const options = resolveOptions(emulatorOptions)
  const temporary = options.dataDir === undefined
  const root = options.dataDir ? path.resolve(options.dataDir) : await mkdtemp(path.join(tmpdir(), 'host-emulator-'))
  const dirs = {
    root,
    zone: path.join(root, 'storage', options.zoneName),
    tmp: path.join(root, 'tmp'),
    tus: path.join(root, 'tus'),
    encoded: path.join(root, 'encoded'),
    captions: path.join(root, 'captions'),
  }
  const extraZoneDirs = options.extraZones.map((zone) => path.join(root, 'storage', zone.zoneName))
  await Promise.all([...Object.values(dirs), ...extraZoneDirs].map((dir) => mkdir(dir, { recursive: true })))
  const closing = new AbortController()
  let baseUrl = ''
  const ctx: EmulatorContext = {
    options,
    dirs,
    videos: new VideoStore(options.libraryId),
    collections: new CollectionStore(),
    // Set to the TUS endpoint's once it exists (just below): it owns the encodings in flight.
    startEncoding: () => {},
    baseUrl: () => baseUrl,
    checksums: new Map(),
    closing: closing.signal,
    purges: [],
    log: (line) => options.log?.(`[host-emulator] ${line}`),
    // Filled by addTenants, just below.
    zone: () => undefined,
    library: () => undefined,
    libraries: () => [],
  }
  addTenants(ctx)
  const tus = createTusEndpoint(ctx)
  ctx.startEncoding = tus.startEncoding
  // With a caller's dataDir the state survives restarts; interrupted encodings start over.
  const persistence = temporary ? undefined : persistState(ctx)
  if (!temporary) {
    for (const video of await loadState(ctx)) {
      if (video.originalPath && video.status >= VideoStatus.Uploaded && video.status <= VideoStatus.Transcoding) {
        Object.assign(video, { status: VideoStatus.Uploaded, availableResolutions: [], mp4Heights: [], hasMP4Fallback: false, encodeProgress: 0 })
        tus.startEncoding(video.guid)
      }
    }
  }
  const upstreams: UpstreamHandler[] = [storageApi, s3Endpoint, cdnPullZone, streamApi, streamCdn, tus.handler, purgeApi, describeEmulator]

  const server = createServer({ connectionsCheckingInterval: Math.max(50, Math.min(30_000, Math.floor(options.headersTimeoutMs / 4))) }, async (req, res) => {
    // Every answer, whatever the upstream: a browser never guesses a type other than the one sent.
    res.setHeader('X-Content-Type-Options', 'nosniff')
    const raw = req.url ?? '/'
    const queryStart = raw.indexOf('?')
    const target = {
      rawPath: queryStart === -1 ? raw : raw.slice(0, queryStart),
      query: new URLSearchParams(queryStart === -1 ? '' : raw.slice(queryStart + 1)),
    }
    // A whole-URL directory signer puts `bcdn_token=...` right after the host: move it into the query.
    const embedded = extractPathToken(target.rawPath)
    if (embedded) {
      target.rawPath = embedded.path
      for (const [name, value] of embedded.query) target.query.set(name, value)
    }
    // The zone or library the path names: every handler then serves it as the only one.
    const libraryHeader = req.headers.libraryid
    const tenant = tenantOf(ctx, target.rawPath, typeof libraryHeader === 'string' ? libraryHeader : undefined)
    // The query is never logged: it carries signatures and tokens.
    res.once('finish', () => ctx.log(`${req.method} ${target.rawPath.replace(/bcdn_token=[^/]*/g, 'bcdn_token=…')} ${res.statusCode}`))
    try {
      for (const upstream of upstreams) {
        if (await upstream(req, res, target, tenant)) return
      }
      req.resume()
      sendText(res, 404, 'Not Found')
    } catch (error) {
      ctx.log(`${req.method} ${target.rawPath} failed: ${(error as Error).message}`)
      if (!res.headersSent) sendText(res, 500, 'Internal Server Error')
      else res.destroy()
    }
  })
  // A connection that dribbles its headers (slow-loris) is answered 408 and closed after
  // `headersTimeoutMs`; a whole request may take `requestTimeoutMs` (long: a slow 1 GiB PUT must not be
  // cut). Node checks both every `connectionsCheckingInterval` (set above, a fraction of the headers timeout).
  server.headersTimeout = options.headersTimeoutMs
  server.requestTimeout = options.requestTimeoutMs
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, () => resolve())
  })
  const { port } = server.address() as AddressInfo
  const host = options.host === '0.0.0.0' || options.host === '::' ? '127.0.0.1' : options.host.includes(':') ? `[${options.host}]` : options.host
  baseUrl = `http://${host}:${port}`

  let closed: Promise<void> | undefined
  return {
    url: baseUrl,
    storage: {
      endpoint: `${baseUrl}/storage`,
      s3Endpoint: `${baseUrl}/s3`,
      zoneName: options.zoneName,
      accessKey: options.accessKey,
      cdnUrl: `${baseUrl}/cdn/${options.zoneName}`,
      ...(options.tokenAuthKey ? { tokenAuthKey: options.tokenAuthKey } : {}),
      ...(options.s3Region ? { region: options.s3Region } : {}),
    },
    stream: {
      apiBase: `${baseUrl}/stream`,
      tusEndpoint: `${baseUrl}${TUS_PATH}`,
      cdnUrl: `${baseUrl}/stream-cdn/${options.libraryId}`,
      libraryId: options.libraryId,
      apiKey: options.apiKey,
      readOnlyKey: options.readOnlyKey,
      ...(options.streamTokenAuthKey ? { tokenAuthKey: options.streamTokenAuthKey } : {}),
    },
    zones: [{ zoneName: options.zoneName, accessKey: options.accessKey }, ...options.extraZones].map((zone) => ({
      ...zone,
      cdnUrl: `${baseUrl}/cdn/${zone.zoneName}`,
    })),
    libraries: [{ libraryId: options.libraryId, apiKey: options.apiKey, readOnlyKey: options.readOnlyKey }, ...options.extraLibraries].map((library) => ({
      ...library,
      cdnUrl: `${baseUrl}/stream-cdn/${library.libraryId}`,
    })),
    account: { apiBase: baseUrl, apiKey: options.accountApiKey },
    purges: () => ctx.purges.map((p) => ({ ...p })),
    setWebhookUrl(url) {
      options.webhookUrl = url
    },
    setKeepOriginals(keep) {
      options.keepOriginals = keep
    },
    videos: () => ctx.libraries().flatMap((library) => library.videos.list().map(toEmulatedVideo)),
    whenEncoded: (guid) => (findVideo(ctx, guid)?.library ?? ctx).videos.whenEncoded(guid),
    storedFilePath(zonePath, zoneName = options.zoneName) {
      const zone = ctx.zone(zoneName)
      const target = zone && resolveInside(zone.dirs.zone, zonePath.replace(/^\/+/, ''))
      return target && target.relative !== '' && statSync(target.absolute, { throwIfNoEntry: false })?.isFile() ? target.absolute : undefined
    },
    close() {
      closed ??= (async () => {
        closing.abort()
        await new Promise<void>((resolve) => {
          server.close(() => resolve())
          server.closeAllConnections()
        })
        await Promise.allSettled([...tus.pending])
        await persistence?.stop()
        if (temporary) await rm(root, { recursive: true, force: true })
      })()
      return closed
    },
  }
}
