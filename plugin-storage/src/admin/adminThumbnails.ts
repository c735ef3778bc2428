/**
 * @module admin/adminThumbnails
 * `upload.adminThumbnail` functions. Payload calls them when it reads a document and puts the result in
 * `thumbnailURL`, which every upload preview of the admin shows (list view, edit view, upload field of
 * a relationship, media picker).
 * - Videos: the streaming host's own thumbnail (captured at the library's / the plugin's
 *   `thumbnailTime`), once the host has one (it exists when encoding produced a rendition).
 * - Images on the storage host: the CDN URL of the thumbnail image size, token-signed when the pull
 *   zone uses token authentication (the CMS file route would answer with a redirect to it anyway).
 */
import { cdnUrlFor } from '../adapter/storageAdapter.js'
import type { ResolvedCollection, ResolvedStorage } from '../options/resolveOptions.js'
import { objectKey } from '../payload/compat.js'
import type { StreamHostData } from '../types.js'

type ThumbnailFn = (args: { doc: Record<string, unknown> }) => null | string

/** Statuses at which the host has produced at least one rendition, hence a thumbnail. */
const ENCODED = new Set(['playable', 'finished'])

/** Thumbnail of a video document, or null while the host has none yet (Payload then shows a file icon). */
export const videoThumbnail: ThumbnailFn = ({ doc }) => {
  const stream = (doc.hostData as { stream?: StreamHostData } | undefined)?.stream
  if (!stream?.thumbnailUrl) return null
  const encoded = ENCODED.has(stream.status ?? '') || Boolean(stream.availableResolutions) || Boolean(stream.resolutions?.length)
  return encoded ? stream.thumbnailUrl : null
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value ? value : undefined)

/**
 * The folder of a document's files as plugin-cloud-storage stores them: its `prefix`, then the client
 * upload's own `_objectKey` segment (3.x); a file sent through the CMS, or seeded, has no such segment.
 */
export function documentFolder(doc: Record<string, unknown>): string | undefined {
  return [text(doc.prefix), text(doc._objectKey)].filter(Boolean).join('/') || undefined
}

/** Thumbnail of an image document: the CDN URL of its `sizeName` image size, in the document's folder. */
export function storageThumbnail(storage: ResolvedStorage, target: ResolvedCollection, sizeName: string): ThumbnailFn {
  return ({ doc }) => {
    const size = (doc.sizes as Record<string, { filename?: null | string } | undefined> | undefined)?.[sizeName]
    if (!size?.filename) return null
    return cdnUrlFor(storage, objectKey(target.prefix, documentFolder(doc), size.filename)) ?? null
  }
}

/** The image size shown as thumbnail: the configured name, or else the narrowest size. */
export function thumbnailSizeName(upload: { adminThumbnail?: unknown; imageSizes?: Array<{ name: string; width?: null | number }> }): string | undefined {
  if (typeof upload.adminThumbnail === 'string') return upload.adminThumbnail
  if (upload.adminThumbnail || !upload.imageSizes?.length) return undefined
  return [...upload.imageSizes].sort((a, b) => (a.width ?? Infinity) - (b.width ?? Infinity))[0]?.name
}
