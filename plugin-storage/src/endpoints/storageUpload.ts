/**
 * @module endpoints/storageUpload
 * `POST /api/storage-host/storage/upload` (earlier-generation client uploads): answers a short-lived
 * SigV4 presigned PUT on the storage host's S3-compatible endpoint, bound to one object key, one content
 * type and one size, plus Payload's signed receipt. The browser PUTs the bytes there, then creates the
 * document with `file: {filename, mimeType, size, clientUploadContext}`; the core verifies the receipt.
 *
 * Request: `{collectionSlug, filename, mimeType, size, docPrefix?}` (`collection` and `filesize` are
 * accepted as aliases). Response: `{url, method, headers, filename, clientUploadContext, expiresAt}`.
 */
import type { Endpoint, PayloadRequest } from 'payload'

import { mayUploadDirectly, signClientUpload } from '../adapter/clientUploadInstructions.js'
import { STORAGE_UPLOAD_PATH } from '../constants.js'
import type { PluginContext } from '../context.js'
import { storageUploadOperation } from '../openapi/operations.js'
import { HttpError } from '../errors.js'
import { readJsonObject } from './readJsonObject.js'
import { withErrors } from './withErrors.js'

async function handleStorageUpload(ctx: PluginContext, req: PayloadRequest): Promise<Response> {
  if (!req.user) throw new HttpError(403, 'An authenticated session is required.')
  const body = await readJsonObject(req)
  const collectionSlug = body.collectionSlug ?? body.collection
  const size = body.size ?? body.filesize
  if (typeof collectionSlug !== 'string' || !collectionSlug) throw new HttpError(400, 'Missing required field: collectionSlug.')
  const collection = req.payload.collections[collectionSlug]?.config
  if (!collection) throw new HttpError(404, `Collection "${collectionSlug}" not found.`)
  const target = ctx.options.collections.get(collectionSlug)
  const storage = target?.storage
  if (!storage?.clientUploads) throw new HttpError(400, 'Client uploads are not enabled for this collection.')
  if (!(await mayUploadDirectly(storage, req, collectionSlug))) throw new HttpError(403, 'You are not allowed to upload to this collection.')
  const max = req.payload.config.upload?.limits?.fileSize
  if (typeof size === 'number' && max !== undefined && size > max) throw new HttpError(413, `The file exceeds the maximum size of ${max} bytes.`)

  const signed = await signClientUpload(storage, target!, req, {
    collectionSlug,
    docPrefix: typeof body.docPrefix === 'string' ? body.docPrefix : undefined,
    filename: body.filename as string,
    mimeType: body.mimeType as string,
    size: size as number,
  })
  const { context, ...presigned } = signed
  return Response.json({ ...presigned, clientUploadContext: context })
}

/** The endpoint, registered when a zone has `clientUploads`. */
export function storageUploadEndpoint(ctx: PluginContext): Endpoint {
  return {
    custom: { openapi: storageUploadOperation },
    handler: withErrors('storage/upload', (req) => handleStorageUpload(ctx, req)),
    method: 'post',
    path: STORAGE_UPLOAD_PATH,
  }
}
