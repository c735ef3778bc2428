/**
 * @module admin/adminThumbnails
 * `upload.adminThumbnail` functions. Payload calls them when it reads a document and puts the result in
 * `thumbnailURL`, which every upload preview of the admin shows (list view, edit view, upload field of
 * a relationship, media picker).
 * - Videos: the streaming host's own thumbnail (captured at the library's / the plugin's
 *   `thumbnailTime`), once the host has one (it exists when encoding produced a rendition).
 * - Images on the storage host: the CDN URL of the thumbnail image size, token-signed when the pull
 *   zone uses token authentication (the CMS file route would answer with a redirect to it anyway).
 * Payload hands these functions the document only, never the request: a URL bound to the viewer's
 * address (`tokenAuth.bindToAddress`) cannot be made here. An image then gets the CMS file route of its
 * size (which redirects each viewer to a URL bound to its own address, or proxies the bytes), and a video
 * no thumbnail (the player's poster comes from the playback endpoint, which knows the viewer).
 */
import { cdnUrlFor } from '../adapter/storageAdapter.js'
import type { ResolvedCollection, ResolvedStorage, ResolvedStream } from '../options/resolveOptions.js'
import { documentFolder, objectKey } from '../keys/objectKeys.js'
import { streamUrls } from '../stream/streamUrls.js'
import { urlBinding } from '../auth/urlBinding.js'
import { signCdnUrl } from '../upstream/signatures.js'
import type { StreamHostData } from '../types.js'

type ThumbnailFn = (args: { doc: Record<string, unknown> }) => null | string

/** Statuses at which the host has produced at least one rendition, hence a thumbnail. */
const ENCODED = new Set(['playable', 'finished'])

/**
 * Thumbnail of a video document on its library's pull zone (from the options in force: Payload hands the
 * stored document, which holds the video id only), or null while the host has none yet (Payload then
 * shows a file icon).
 */
export function videoThumbnail(library: ResolvedStream): ThumbnailFn {
  return ({ doc }) => {
    const stream = (doc.hostData as { stream?: StreamHostData } | undefined)?.stream
    if (!stream?.videoId || library.tokenAuth?.bindToAddress) return null
    const encoded = ENCODED.has(stream.status ?? '') || Boolean(stream.availableResolutions) || Boolean(stream.resolutions?.length)
    if (!encoded) return null
    const url = streamUrls(library, stream.videoId).thumbnail
    return library.tokenAuth ? signCdnUrl(url, urlBinding(library.tokenAuth, library.cdnUrl, url, undefined)) : url
  }
}

/**
 * Thumbnail of an image document: the CDN URL of its `sizeName` image size, in the document's folder; with
 * URLs bound to the viewer's address, the size's CMS file route under `apiRoute` (module comment).
 */
export function storageThumbnail(storage: ResolvedStorage, target: ResolvedCollection, sizeName: string, apiRoute = '/api'): ThumbnailFn {
  return ({ doc }) => {
    const size = (doc.sizes as Record<string, { filename?: null | string } | undefined> | undefined)?.[sizeName]
    if (!size?.filename) return null
    if (storage.tokenAuth?.bindToAddress) {
      const folder = typeof doc.prefix === 'string' && doc.prefix ? `?prefix=${encodeURIComponent(doc.prefix)}` : ''
      return `${apiRoute}/${target.slug}/file/${encodeURIComponent(size.filename)}${folder}`
    }
    return cdnUrlFor(storage, objectKey(target.prefix, documentFolder(doc), size.filename)) ?? null
  }
}

/** The image size shown as thumbnail: the configured name, or else the narrowest size. */
export function thumbnailSizeName(upload: { adminThumbnail?: unknown; imageSizes?: Array<{ name: string; width?: null | number }> }): string | undefined {
  if (typeof upload.adminThumbnail === 'string') return upload.adminThumbnail
  if (upload.adminThumbnail || !upload.imageSizes?.length) return undefined
  return [...upload.imageSizes].sort((a, b) => (a.width ?? Infinity) - (b.width ?? Infinity))[0]?.name
}
