/**
 * @module endpoints/tusAuth
 * `POST /api/storage-host/stream/tus-auth`: authorises a browser-direct TUS upload to the streaming host
 * (spec: plugin-storage-api.md, "tus-auth"). Creates the video record for a new upload, or re-signs an
 * upload of a video the same user created (resume), and hands out the `videoToken` that binds the video
 * to the CMS document later.
 */
import type { Endpoint, PayloadRequest } from 'payload'

import { checkTusAccess } from '../auth/tusAccess.js'
import { signVideoToken, userKey, verifyVideoToken } from '../auth/videoToken.js'
import { TUS_AUTH_PATH } from '../constants.js'
import { type PluginContext, streamApiConfig } from '../context.js'
import { tusAuthOperation } from '../openapi/operations.js'
import { createUploadReceipt, sanitizeUploadFilename } from '../payload/compat.js'
import type { TusAuthResponse } from '../types.js'
import { createVideo, getVideo } from '../upstream/streamApi.js'
import { tusSignature } from '../upstream/signatures.js'
import { uniqueFilename } from '../validation/uniqueFilename.js'
import { parseTusRequest, TUS_AUTH_BODY_LIMIT, validateTusFile } from '../validation/validateTusRequest.js'
import { HttpError } from '../errors.js'
import { withErrors } from './withErrors.js'
import { readLimitedBody } from './readLimitedBody.js'

/** Video object statuses after which the bytes are on the host: Uploaded, Processing, Transcoding, Finished, JIT. */
const UPLOADED_STATUSES = new Set([1, 2, 3, 4, 7, 8])
const STATUS_NAMES = ['created', 'uploaded', 'processing', 'transcoding', 'finished', 'error', 'uploadFailed', 'jitSegmenting', 'jitPlaylistsCreated']

/** The JSON object body, read up to {@link TUS_AUTH_BODY_LIMIT} bytes (413 past it, before parsing). */
async function readTusAuthBody(req: PayloadRequest): Promise<Record<string, unknown>> {
  const raw = await readLimitedBody(req, TUS_AUTH_BODY_LIMIT)
  let body: unknown
  try {
    body = JSON.parse(raw.toString('utf8'))
  } catch {
    throw new HttpError(400, 'The request body must be JSON.')
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new HttpError(400, 'The request body must be a JSON object.')
  return body as Record<string, unknown>
}

async function handleTusAuth(ctx: PluginContext, req: PayloadRequest): Promise<Response> {
  const user = userKey(req)
  if (!user) throw new HttpError(403, 'An authenticated session is required.')
  const body = parseTusRequest(await readTusAuthBody(req))
  const collection = req.payload.collections[body.collection]?.config
  if (!collection) throw new HttpError(404, `Collection "${body.collection}" not found.`)
  const target = ctx.options.collections.get(body.collection)
  // The collection's library decides who may upload; a collection the plugin does not stream is checked
  // with the CMS rule, so that access is refused (403) before anything tells whether TUS is enabled there.
  const stream = target?.stream
  await checkTusAccess(stream, req, body)
  if (!stream?.tus) throw new HttpError(400, 'TUS uploads are not enabled for this collection.')

  await validateTusFile(body, {
    collectionMimeTypes: target?.mimeTypes,
    maxFileSize: req.payload.config.upload?.limits?.fileSize,
    sanitizeFilename: sanitizeUploadFilename,
    streamMimeTypes: stream.mimeTypes,
  })

  const api = streamApiConfig(stream)
  // The receipt's file name does not depend on the host: look it up while the host answers.
  const filenamePromise = body.head !== undefined ? uniqueFilename(req, body.collection, sanitizeUploadFilename(body.filename)) : undefined
  filenamePromise?.catch(() => undefined)
  let videoId: string
  let videoToken: string
  let uploadedStatus: number | undefined
  if (body.videoId && body.videoToken) {
    const claims = await verifyVideoToken(req.payload.secret, body.videoToken)
    if (!claims || claims.videoId !== body.videoId || claims.user !== user || claims.libraryId !== stream.libraryId) {
      throw new HttpError(403, 'The video token does not belong to this video and user.')
    }
    const video = await getVideo(api, body.videoId)
    videoId = body.videoId
    videoToken = body.videoToken
    if (UPLOADED_STATUSES.has(video.status)) uploadedStatus = video.status
  } else {
    if (!body.title?.trim()) throw new HttpError(400, 'A title is required for a new video.')
    const video = await createVideo(api, body.title.trim(), stream.thumbnailTime)
    if (!video.guid) throw new Error('The stream API answered without a video id')
    videoId = video.guid
    videoToken = await signVideoToken(req.payload.secret, { libraryId: stream.libraryId, user, videoId })
  }

  const response: TusAuthResponse = { type: 'upload', videoId, videoToken, libraryId: stream.libraryId }
  if (uploadedStatus !== undefined) {
    response.type = 'uploaded'
    response.status = STATUS_NAMES[uploadedStatus] ?? String(uploadedStatus)
  } else {
    const expire = Math.floor(Date.now() / 1000) + (stream.tus?.expiresIn ?? 3600)
    response.authorizationSignature = tusSignature(stream.libraryId, stream.apiKey, expire, videoId)
    response.authorizationExpire = expire
    if (stream.thumbnailTime !== undefined) response.thumbnailTime = stream.thumbnailTime
  }
  if (filenamePromise) {
    const filename = await filenamePromise
    response.filename = filename
    // 3.x: Payload's own receipt, checked by the core; 4.x: the plugin's, checked by its hook.
    response.signedReceipt = createUploadReceipt({ collectionSlug: body.collection, context: { prefix: '', videoId }, filename, req })
  }
  return Response.json(response)
}

/** The endpoint, registered when a library has `tus`. */
export function tusAuthEndpoint(ctx: PluginContext): Endpoint {
  return {
    custom: { openapi: tusAuthOperation },
    handler: withErrors('tus-auth', (req) => handleTusAuth(ctx, req)),
    method: 'post',
    path: TUS_AUTH_PATH,
  }
}
