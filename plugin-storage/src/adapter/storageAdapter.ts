/**
 * @module adapter/storageAdapter
 * The adapter of a collection whose files live on the storage host: upload the
 * original and every image size (files on disk are streamed), delete them, serve them (proxy with Range,
 * or 302 to the token-signed CDN URL) and generate their URLs.
 */
import { APIError, type PayloadRequest } from 'payload'

import { storageApiConfig } from '../context.js'
import type { ResolvedCollection, ResolvedStorage } from '../options/resolveOptions.js'
import { serveKey, UPLOAD_CONTENT_SECURITY_POLICY } from '../payload/compat.js'
import { uploadContextOf } from '../payload/uploadReference.js'
import { urlBinding } from '../auth/urlBinding.js'
import { signCdnUrl } from '../upstream/signatures.js'
import { deleteObject, getObject, putObject } from '../upstream/storageApi.js'
import { HttpError, UpstreamError } from '../errors.js'
import type { HostAdapter, ServeArgs } from '../wiring/hostAdapter.js'
import { uploadInstructionsFor } from './clientUploadInstructions.js'
import { trackUpload, undoCreate } from './uploadTracker.js'

/**
 * Public URL of a key on the pull zone, token-signed when configured, for the reader whose request
 * headers are given (the viewer's address, with `tokenAuth.bindToAddress`: a 403 `HttpError` without it).
 */
export function cdnUrlFor(storage: ResolvedStorage, key: string, headers?: Pick<Headers, 'get'>): string | undefined {
  if (!storage.cdnUrl) return undefined
  const url = `${storage.cdnUrl}/${key.split('/').map(encodeURIComponent).join('/')}`
  return storage.tokenAuth ? signCdnUrl(url, urlBinding(storage.tokenAuth, storage.cdnUrl, url, headers)) : url
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
    let location: string
    try {
      location = cdnUrlFor(storage, key, req.headers) ?? ''
    } catch (err) {
      if (err instanceof HttpError) return Response.json({ errors: [{ message: err.message }] }, { status: err.status })
      throw err
    }
    return new Response(null, { headers: { 'Cache-Control': 'private, no-store', Location: location }, status: 302 })
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

/** The adapter of one storage collection. */
export function storageAdapter(storage: ResolvedStorage, target: ResolvedCollection): HostAdapter {
  const api = storageApiConfig(storage)
  return {
    name: 'storage-host',
    ...(storage.clientUploads ? { uploadInstructions: uploadInstructionsFor(storage, target) } : {}),
    handleDelete: async ({ key }) => {
      await deleteObject(api, key)
    },
    handleUpload: async ({ collection, data, file, key, req }) => {
      const body = file.tempFilePath && (!file.buffer || file.buffer.length === 0) ? { path: file.tempFilePath, size: file.filesize } : { buffer: file.buffer! }
      try {
        await trackUpload(
          req,
          key,
          () => putObject(api, key, body, file.mimeType),
          (k) => deleteObject(api, k),
        )
      } catch (err) {
        await undoCreate(req, collection.slug, data.id)
        const reason = err instanceof UpstreamError ? err.message : 'the storage host could not be reached'
        throw new APIError(`Storing "${file.filename}" on the storage host failed (${reason}). Nothing was saved.`, 502, undefined, true)
      }
    },
    publicUrl: (key, req) => {
      if (!storage.publicUrls) return undefined
      try {
        return cdnUrlFor(storage, key, req?.headers)
      } catch (err) {
        // A URL bound to an address the request does not name: none at all (README, `bindToAddress`).
        if (err instanceof HttpError) return null
        throw err
      }
    },
    staticHandler: (req, args) => serve(storage, target, req, args),
  }
}
