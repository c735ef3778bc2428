/**
 * @module hooks/purgeCdnUrls
 * Purges a storage collection's file from the pull zone cache when it is replaced (update with a new
 * file) or its document is deleted: the original and every image size, old and new locations. The CDN
 * would otherwise keep serving the old bytes (same file name) or the deleted file until its cache expires.
 * A failed purge is logged with the URL (never the key) and never fails the save or the delete: the
 * document and the stored files are already right, only a cache is stale.
 */
import type { CollectionAfterChangeHook, CollectionAfterDeleteHook, PayloadRequest } from 'payload'

import type { ResolvedCollection, ResolvedStorage } from '../options/resolveOptions.js'
import { documentFolder, objectKey } from '../keys/objectKeys.js'
import { purgeUrl } from '../upstream/purgeUrl.js'
import { requestFile } from '../wiring/uploadHooks.js'

interface UploadDoc {
  filename?: unknown
  prefix?: unknown
  _objectKey?: unknown
  sizes?: Record<string, { filename?: unknown } | null | undefined> | null
  filesize?: unknown
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value ? value : undefined)

/** Unsigned pull-zone URLs of a document's original and sizes (the cache key ignores token parameters). */
export function cdnUrlsOf(storage: ResolvedStorage, target: ResolvedCollection, doc: UploadDoc | undefined): string[] {
  if (!doc || !storage.cdnUrl) return []
  const folder = documentFolder(doc)
  const names = [text(doc.filename), ...Object.values(doc.sizes ?? {}).map((size) => text(size?.filename))].filter((n): n is string => Boolean(n))
  return names.map((name) => `${storage.cdnUrl}/${objectKey(target.prefix, folder, name).split('/').map(encodeURIComponent).join('/')}`)
}

async function purgeAll(storage: ResolvedStorage, req: PayloadRequest, urls: string[]): Promise<void> {
  const purge = storage.purge
  if (!purge) return
  await Promise.all(
    [...new Set(urls)].map((url) =>
      purgeUrl(purge, url).catch((err: Error) => {
        req.payload.logger.warn({ err: err.message, msg: 'storage-host: CDN purge failed; the cache may serve the old file until it expires', url })
      }),
    ),
  )
}

/** Whether this save brought a new file (the upload hooks keep `req.file` in the context across nested saves). */
function hasNewFile(req: PayloadRequest, doc: UploadDoc, previousDoc: UploadDoc | undefined): boolean {
  if (requestFile(req)) return true
  return Boolean(previousDoc && (previousDoc.filename !== doc.filename || previousDoc._objectKey !== doc._objectKey || previousDoc.prefix !== doc.prefix))
}

/** The two hooks of a storage collection (only installed when `storage.purge` is on). */
export function purgeCdnUrlsHooks(
  storage: ResolvedStorage,
  target: ResolvedCollection,
): { afterChange: CollectionAfterChangeHook; afterDelete: CollectionAfterDeleteHook } {
  return {
    afterChange: async ({ doc, operation, previousDoc, req }) => {
      const previous = previousDoc as UploadDoc | undefined
      if (operation !== 'update' || !text(previous?.filename) || !hasNewFile(req, doc as UploadDoc, previous)) return doc
      await purgeAll(storage, req, [...cdnUrlsOf(storage, target, previous), ...cdnUrlsOf(storage, target, doc as UploadDoc)])
      return doc
    },
    afterDelete: async ({ doc, req }) => {
      await purgeAll(storage, req, cdnUrlsOf(storage, target, doc as UploadDoc))
      return doc
    },
  }
}
