/**
 * @module adapter/storageAdapter
 * The plugin-cloud-storage adapter of a collection whose files live on the storage host: upload the
 * original and every image size (files on disk are streamed), delete them, serve them (proxy with Range,
 * or 302 to the token-signed CDN URL) and generate their URLs.
 */
import type { Adapter, GeneratedAdapter } from '@payloadcms/plugin-cloud-storage/types'
import { APIError, type PayloadRequest } from 'payload'

import { storageApiConfig } from '../context.js'
import type { ResolvedCollection, ResolvedStorage } from '../options/resolveOptions.js'
import { objectKey, serveKey, storedKey, UPLOAD_CONTENT_SECURITY_POLICY, uploadKey } from '../payload/compat.js'
import { uploadContextOf } from '../payload/uploadReference.js'
import { signCdnUrl } from '../upstream/signatures.js'
import { deleteObject, getObject, putObject } from '../upstream/storageApi.js'
import { UpstreamError } from '../errors.js'
import { uploadInstructionsFor } from './clientUploadInstructions.js'
import { trackUpload, undoCreate } from './uploadTracker.js'

/** Arguments of the 4.x staticHandler (`uploadReference`) and the 3.x one (`clientUploadContext`). */
type ServeArgs = Parameters<GeneratedAdapter['staticHandler']>[1] & { params: { uploadReference?: unknown } }

/** Public URL of a key on the pull zone, token-signed when configured. */
export function cdnUrlFor(storage: ResolvedStorage, key: string): string | undefined {
  if (!storage.cdnUrl) return undefined
  const url = `${storage.cdnUrl}/${key.split('/').map(encodeURIComponent).join('/')}`
  return storage.tokenAuth ? signCdnUrl(url, storage.tokenAuth.key, storage.tokenAuth.expiresIn) : url
}

const PASSED_HEADERS = ['content-type', 'content-length', 'content-range', 'accept-ranges', 'etag', 'last-modified']

/** How long the read-back of a client upload waits for the host's first answer before giving up. */
export const CLIENT_UPLOAD_READ_TIMEOUT_MS = 10_000

/**
 * The answer to the core's read-back of a client upload whose object is not on the host (never PUT,
 * deleted) or that the host did not answer for in time. The core reads the body of whatever the handler
 * returns, whatever its status (an empty body became an empty file, then a vague error, or a wait on the
 * host), so the body itself fails with the reason: the document save answers 400 at once, naming the
 * upload, and nothing is written.
 */
function missingUpload(filename: string, reason: 'missing' | 'unreachable'): Response {
  const message =
    reason === 'missing'
      ? `The uploaded file "${filename}" is not on the storage host: upload it with the signed URL first (or upload it again), then save.`
      : `The uploaded file "${filename}" could not be read from the storage host in time. Try saving again.`
  const error = new APIError(message, 400, undefined, true)
  const body = new ReadableStream<Uint8Array>({ start: (controller) => controller.error(error) })
  return new Response(body, { status: reason === 'missing' ? 404 : 504 })
}

/** Opens a client upload for the core's read-back, waiting at most {@link CLIENT_UPLOAD_READ_TIMEOUT_MS} for the host's headers. */
async function readBack(storage: ResolvedStorage, key: string, filename: string, range: string | null): Promise<Response> {
  const abort = new AbortController()
  const timer = setTimeout(() => abort.abort(), CLIENT_UPLOAD_READ_TIMEOUT_MS)
  try {
    return await getObject(storageApiConfig(storage), key, range, abort.signal)
  } catch (err) {
    if (err instanceof UpstreamError && err.isNotFound()) return missingUpload(filename, 'missing')
    if (err instanceof UpstreamError && err.status === 0) return missingUpload(filename, 'unreachable')
    throw err
  } finally {
    // Only the wait for the headers is bounded: the body of a large file may take its time.
    clearTimeout(timer)
  }
}

async function serve(storage: ResolvedStorage, target: ResolvedCollection, req: PayloadRequest, args: ServeArgs): Promise<Response> {
  const collection = req.payload.collections[args.params.collection]?.config
  if (!collection) return new Response(null, { status: 404 })
  const upload = uploadContextOf(req, args.params)
  // An upload reference that does not verify reads nothing; the plugin's hook refuses the request next.
  if (upload.refused) return new Response(new Uint8Array(0), { status: 200 })
  const key = await serveKey({
    collection,
    collectionPrefix: target.prefix,
    doc: args.doc,
    filename: args.params.filename,
    prefixQueryParam: args.params.prefix,
    req,
    uploadContext: upload.context,
  })
  // Client-upload probes of the core read the bytes themselves: always proxy those.
  if (storage.serve === 'redirect' && !upload.context) {
    return new Response(null, { headers: { 'Cache-Control': 'private, no-store', Location: cdnUrlFor(storage, key) ?? '' }, status: 302 })
  }
  let upstream: Response
  try {
    upstream = upload.context
      ? await readBack(storage, key, args.params.filename, req.headers.get('range'))
      : await getObject(storageApiConfig(storage), key, req.headers.get('range'))
    if (!upstream.ok) return upstream
  } catch (err) {
    if (err instanceof UpstreamError && err.isNotFound()) return new Response(null, { status: 404 })
    if (err instanceof UpstreamError && err.status === 416) return new Response(null, { status: 416 })
    throw err
  }
  const headers = new Headers(args.headers)
  for (const name of PASSED_HEADERS) {
    const value = upstream.headers.get(name)
    if (value) headers.set(name, value)
  }
  if (!headers.has('accept-ranges')) headers.set('Accept-Ranges', 'bytes')
  headers.set('Content-Security-Policy', UPLOAD_CONTENT_SECURITY_POLICY)
  headers.set('X-Content-Type-Options', 'nosniff')
  return new Response(upstream.body, { headers, status: upstream.status })
}

/** Builds the adapter factory for a storage collection. */
export function storageAdapter(storage: ResolvedStorage, target: ResolvedCollection): Adapter {
  const api = storageApiConfig(storage)
  return () => ({
    name: 'storage-host',
    // 3.x reads `clientUploads`, 4.x `uploadInstructions`; each core ignores the other key.
    clientUploads: storage.clientUploads ? { access: storage.clientUploads.access } : undefined,
    ...(storage.clientUploads ? { uploadInstructions: uploadInstructionsFor(storage, target) } : {}),
    generateURL: ({ filename, prefix }) => cdnUrlFor(storage, objectKey(target.prefix, prefix, filename)) ?? '',
    handleDelete: async ({ doc, filename, storageFilePath }) => {
      await deleteObject(api, storedKey({ collectionPrefix: target.prefix, doc, filename, storageFilePath }))
    },
    handleUpload: async ({ collection, data, file, req, storageFilePath }) => {
      const key = uploadKey({
        collectionPrefix: target.prefix,
        docPrefix: (data as { prefix?: string } | undefined)?.prefix,
        filename: file.filename,
        storageFilePath,
      })
      const body = file.tempFilePath && (!file.buffer || file.buffer.length === 0) ? { path: file.tempFilePath, size: file.filesize } : { buffer: file.buffer }
      try {
        await trackUpload(
          req,
          key,
          () => putObject(api, key, body, file.mimeType),
          (k) => deleteObject(api, k),
        )
      } catch (err) {
        await undoCreate(req, collection.slug, (data as { id?: unknown } | undefined)?.id)
        const reason = err instanceof UpstreamError ? err.message : 'the storage host could not be reached'
        throw new APIError(`Storing "${file.filename}" on the storage host failed (${reason}). Nothing was saved.`, 502, undefined, true)
      }
    },
    // 3.x checks the receipt's signature, user, collection and filename; the key comes from it.
    requiresClientUploadReceipt: true,
    staticHandler: (req, args) => serve(storage, target, req, args),
  })
}
