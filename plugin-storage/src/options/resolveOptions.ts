/**
 * @module options/resolveOptions
 * Fills in the defaults of {@link StorageHostPluginOptions} once, so the rest of the code never repeats them.
 */
import type {
  ClientUploadsAccess,
  CollectionTarget,
  CollectionTargetOptions,
  StorageHostPluginOptions,
  StorageOptions,
  StreamOptions,
  TokenAuthOptions,
  TusAccess,
  TusCheckAccess,
} from '../types.js'
import { validateOptions } from './validateOptions.js'

export interface ResolvedTokenAuth {
  key: string
  expiresIn: number
  bindToAddress: boolean
  /** Lower-case header name. */
  addressHeader: string
  /** Folder on the pull zone, no leading or trailing slash (`''`: the whole zone). */
  pathPrefix?: string
}

export interface ResolvedStorage {
  zoneName: string
  accessKey: string
  endpoint: string
  s3Endpoint: string
  s3Region: string
  cdnUrl?: string
  tokenAuth?: ResolvedTokenAuth
  serve: 'proxy' | 'redirect'
  publicUrls: boolean
  clientUploads?: { access?: ClientUploadsAccess; expiresIn: number; sweepInterval: number }
  /** Set when purging is configured and not `disabled`. */
  purge?: { apiKey: string; apiBase: string }
}

export interface ResolvedStream {
  libraryId: number
  apiKey: string
  apiBase: string
  tusEndpoint: string
  cdnUrl: string
  mimeTypes: string[]
  mp4Fallback: boolean
  thumbnailTime?: number
  tokenAuth?: ResolvedTokenAuth
  tus?: { access?: TusAccess; checkAccess?: TusCheckAccess; expiresIn: number }
  sweepUnboundVideos?: { interval: number }
  webhook?: { secret: string }
}

export interface ResolvedCollection {
  slug: string
  target: CollectionTarget
  prefix: string
  /** The collection's own `upload.mimeTypes` (stream collections: enforced by the plugin, see README). */
  mimeTypes?: string[]
  /** Storage collections: the zone (its own `zone`, else the top-level `storage`). */
  storage?: ResolvedStorage
  /** Stream collections: the library (its own `library`, else the top-level `stream`). */
  stream?: ResolvedStream
}

export interface ResolvedOptions {
  disabled: boolean
  collections: Map<string, ResolvedCollection>
  /** The top-level zone (collections without a `zone` of their own). */
  storage?: ResolvedStorage
  /** The top-level library (collections without a `library` of their own). */
  stream?: ResolvedStream
}

/** Every distinct zone the collections use (a zone shared by several collections once). */
export function zonesOf(options: ResolvedOptions): ResolvedStorage[] {
  return [...new Set([...options.collections.values()].flatMap((c) => (c.storage ? [c.storage] : [])))]
}

/** Every distinct library the collections use. */
export function librariesOf(options: ResolvedOptions): ResolvedStream[] {
  return [...new Set([...options.collections.values()].flatMap((c) => (c.stream ? [c.stream] : [])))]
}

/** The stream collections of one library. */
export function collectionsOfLibrary(options: ResolvedOptions, library: ResolvedStream): ResolvedCollection[] {
  return [...options.collections.values()].filter((c) => c.stream === library)
}

const trimSlash = (url: string): string => url.replace(/\/+$/, '')

function resolveTokenAuth(t: TokenAuthOptions | undefined): ResolvedTokenAuth | undefined {
  if (!t) return undefined
  return {
    addressHeader: (t.addressHeader ?? 'x-forwarded-for').toLowerCase(),
    bindToAddress: t.bindToAddress ?? false,
    expiresIn: t.expiresIn ?? 3600,
    key: t.key,
    pathPrefix: t.pathPrefix === undefined ? undefined : t.pathPrefix.replace(/^\/+|\/+$/g, ''),
  }
}

function resolveStorage(s: StorageOptions, where: string): ResolvedStorage {
  const region = s.region ?? ''
  const clientUploads = s.clientUploads === true ? {} : s.clientUploads || undefined
  const storage: ResolvedStorage = {
    zoneName: s.zoneName,
    accessKey: s.accessKey,
    endpoint: trimSlash(s.endpoint ?? (region ? `https://${region}.storage.bunnycdn.com` : 'https://storage.bunnycdn.com')),
    s3Endpoint: trimSlash(s.s3Endpoint ?? `https://${region || 'de'}-s3.storage.bunnycdn.com`),
    s3Region: region || 'de',
    cdnUrl: s.cdnUrl ? trimSlash(s.cdnUrl) : undefined,
    tokenAuth: resolveTokenAuth(s.tokenAuth),
    serve: s.serve ?? (s.cdnUrl ? 'redirect' : 'proxy'),
    publicUrls: s.publicUrls ?? false,
    clientUploads: clientUploads
      ? { access: clientUploads.access, expiresIn: clientUploads.expiresIn ?? 600, sweepInterval: clientUploads.sweepInterval ?? 3600 }
      : undefined,
    purge: s.purge && !s.purge.disabled ? { apiBase: trimSlash(s.purge.apiBase ?? 'https://api.bunny.net'), apiKey: s.purge.apiKey } : undefined,
  }
  for (const [option, set] of [
    ['purge', storage.purge],
    ['tokenAuth', storage.tokenAuth],
    ['publicUrls', storage.publicUrls],
  ] as const) {
    if (set && !storage.cdnUrl) throw new Error(`storage-host plugin: ${where}.${option} needs ${where}.cdnUrl`)
  }
  if (storage.serve === 'redirect' && !storage.cdnUrl) throw new Error(`storage-host plugin: ${where}.serve "redirect" needs ${where}.cdnUrl`)
  return storage
}

function resolveStream(s: StreamOptions): ResolvedStream {
  const tus = s.tus === true ? {} : s.tus || undefined
  return {
    libraryId: s.libraryId,
    apiKey: s.apiKey,
    apiBase: trimSlash(s.apiBase ?? 'https://video.bunnycdn.com'),
    tusEndpoint: s.tusEndpoint ?? 'https://video.bunnycdn.com/tusupload',
    cdnUrl: trimSlash(s.cdnUrl),
    mimeTypes: s.mimeTypes ?? ['video/*'],
    mp4Fallback: s.mp4Fallback ?? false,
    thumbnailTime: s.thumbnailTime,
    tokenAuth: resolveTokenAuth(s.tokenAuth),
    tus: tus ? { access: tus.access, checkAccess: tus.checkAccess, expiresIn: tus.expiresIn ?? 3600 } : undefined,
    sweepUnboundVideos: s.sweepUnboundVideos ? { interval: (s.sweepUnboundVideos === true ? undefined : s.sweepUnboundVideos.interval) ?? 3600 } : undefined,
    webhook: s.webhook ? { secret: s.webhook.secret } : undefined,
  }
}

/**
 * Validates and completes the options; throws on a missing or malformed option (naming it and what to set)
 * and on a collection whose host is not configured. A collection's own `zone` or `library` is complete on
 * its own: nothing of the top-level `storage`/`stream` is inherited (a zone's keys, CDN and token key
 * belong to that zone).
 */
export function resolveOptions(options: StorageHostPluginOptions): ResolvedOptions {
  validateOptions(options)
  const storage = options.storage ? resolveStorage(options.storage, 'storage') : undefined
  const stream = options.stream ? resolveStream(options.stream) : undefined
  const collections = new Map<string, ResolvedCollection>()
  for (const [slug, value] of Object.entries(options.collections)) {
    if (!value) continue
    const own: Partial<CollectionTargetOptions> = typeof value === 'string' ? {} : value
    const target = typeof value === 'string' ? value : value.target
    const prefix = own.prefix ?? ''
    if (target === 'storage') {
      if (own.library) throw new Error(`storage-host plugin: collection "${slug}" targets storage, so it takes a zone, not a library`)
      const zone = own.zone ? resolveStorage(own.zone, `collections.${slug}.zone`) : storage
      if (!zone) throw new Error(`storage-host plugin: collection "${slug}" targets storage but neither storage options nor its own zone are set`)
      collections.set(slug, { slug, target, prefix, storage: zone })
    } else {
      if (own.zone) throw new Error(`storage-host plugin: collection "${slug}" targets stream, so it takes a library, not a zone`)
      const library = own.library ? resolveStream(own.library) : stream
      if (!library) throw new Error(`storage-host plugin: collection "${slug}" targets stream but neither stream options nor its own library are set`)
      collections.set(slug, { slug, target, prefix, stream: library })
    }
  }
  return { disabled: options.disabled ?? false, collections, storage, stream }
}
