/**
 * @module options/resolveOptions
 * Fills in the defaults of {@link StorageHostPluginOptions} once, so the rest of the code never repeats them.
 */
import type { ClientUploadsAccess, CollectionTarget, StorageHostPluginOptions, TusAccess, TusCheckAccess } from '../types.js'
import { validateOptions } from './validateOptions.js'

export interface ResolvedStorage {
  zoneName: string
  accessKey: string
  endpoint: string
  s3Endpoint: string
  s3Region: string
  cdnUrl?: string
  tokenAuth?: { key: string; expiresIn: number }
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
  tokenAuth?: { key: string; expiresIn: number }
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
}

export interface ResolvedOptions {
  disabled: boolean
  collections: Map<string, ResolvedCollection>
  storage?: ResolvedStorage
  stream?: ResolvedStream
}

const trimSlash = (url: string): string => url.replace(/\/+$/, '')

/**
 * Validates and completes the options; throws on a missing or malformed option (naming it and what to set)
 * and on a collection whose host is not configured.
 */
export function resolveOptions(options: StorageHostPluginOptions): ResolvedOptions {
  validateOptions(options)
  const collections = new Map<string, ResolvedCollection>()
  for (const [slug, value] of Object.entries(options.collections)) {
    if (!value) continue
    const target = typeof value === 'string' ? value : value.target
    const prefix = typeof value === 'string' ? '' : (value.prefix ?? '')
    if (target === 'storage' && !options.storage) throw new Error(`storage-host plugin: collection "${slug}" targets storage but no storage options are set`)
    if (target === 'stream' && !options.stream) throw new Error(`storage-host plugin: collection "${slug}" targets stream but no stream options are set`)
    collections.set(slug, { slug, target, prefix })
  }

  let storage: ResolvedStorage | undefined
  if (options.storage) {
    const s = options.storage
    const region = s.region ?? ''
    const clientUploads = s.clientUploads === true ? {} : s.clientUploads || undefined
    storage = {
      zoneName: s.zoneName,
      accessKey: s.accessKey,
      endpoint: trimSlash(s.endpoint ?? (region ? `https://${region}.storage.bunnycdn.com` : 'https://storage.bunnycdn.com')),
      s3Endpoint: trimSlash(s.s3Endpoint ?? `https://${region || 'de'}-s3.storage.bunnycdn.com`),
      s3Region: region || 'de',
      cdnUrl: s.cdnUrl ? trimSlash(s.cdnUrl) : undefined,
      tokenAuth: s.tokenAuth ? { key: s.tokenAuth.key, expiresIn: s.tokenAuth.expiresIn ?? 3600 } : undefined,
      serve: s.serve ?? (s.cdnUrl ? 'redirect' : 'proxy'),
      publicUrls: s.publicUrls ?? false,
      clientUploads: clientUploads
        ? { access: clientUploads.access, expiresIn: clientUploads.expiresIn ?? 600, sweepInterval: clientUploads.sweepInterval ?? 3600 }
        : undefined,
      purge: s.purge && !s.purge.disabled ? { apiBase: trimSlash(s.purge.apiBase ?? 'https://api.bunny.net'), apiKey: s.purge.apiKey } : undefined,
    }
    if (storage.purge && !storage.cdnUrl) throw new Error('storage-host plugin: storage.purge needs storage.cdnUrl')
    if (storage.serve === 'redirect' && !storage.cdnUrl) throw new Error('storage-host plugin: storage.serve "redirect" needs storage.cdnUrl')
    if (storage.publicUrls && !storage.cdnUrl) throw new Error('storage-host plugin: storage.publicUrls needs storage.cdnUrl')
    if (storage.tokenAuth && !storage.cdnUrl) throw new Error('storage-host plugin: storage.tokenAuth needs storage.cdnUrl')
  }

  let stream: ResolvedStream | undefined
  if (options.stream) {
    const s = options.stream
    const apiBase = trimSlash(s.apiBase ?? 'https://video.bunnycdn.com')
    const tus = s.tus === true ? {} : s.tus || undefined
    stream = {
      libraryId: s.libraryId,
      apiKey: s.apiKey,
      apiBase,
      tusEndpoint: s.tusEndpoint ?? 'https://video.bunnycdn.com/tusupload',
      cdnUrl: trimSlash(s.cdnUrl),
      mimeTypes: s.mimeTypes ?? ['video/*'],
      mp4Fallback: s.mp4Fallback ?? false,
      thumbnailTime: s.thumbnailTime,
      tokenAuth: s.tokenAuth ? { expiresIn: s.tokenAuth.expiresIn ?? 3600, key: s.tokenAuth.key } : undefined,
      tus: tus ? { access: tus.access, checkAccess: tus.checkAccess, expiresIn: tus.expiresIn ?? 3600 } : undefined,
      sweepUnboundVideos: s.sweepUnboundVideos ? { interval: (s.sweepUnboundVideos === true ? undefined : s.sweepUnboundVideos.interval) ?? 3600 } : undefined,
      webhook: s.webhook ? { secret: s.webhook.secret } : undefined,
    }
  }
  return { disabled: options.disabled ?? false, collections, storage, stream }
}
