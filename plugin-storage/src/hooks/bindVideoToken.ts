/**
 * @module hooks/bindVideoToken
 * Collection `beforeChange` hook of stream collections: a document saved with
 * `hostData.stream.videoToken` is bound to that video. The token must be valid, issued to the same
 * user, for this library, for the video the upload receipt names, and the video must not belong to
 * another document; otherwise the save fails with a clear error and nothing is written.
 * The token itself is never stored.
 */
import { type CollectionBeforeChangeHook, type PayloadRequest, ValidationError } from 'payload'
import { validateMimeType } from 'payload/shared'

import { userKey, verifyVideoToken } from '../auth/videoToken.js'
import { INTERNAL_UPDATE_CONTEXT } from '../constants.js'
import type { PluginContext } from '../context.js'
import type { ResolvedCollection, ResolvedStream } from '../options/resolveOptions.js'
import { mp4Resolutions, readVideo, staticStreamData, videoObjectData } from '../stream/refreshStreamData.js'
import { statusFromVideoObject } from '../stream/statusMachine.js'
import type { StreamHostData } from '../types.js'

const TOKEN_PATH = 'hostData.stream.videoToken'

function refuse(message: string, path = TOKEN_PATH): never {
  throw new ValidationError({ errors: [{ message, path }] })
}

async function boundElsewhere(ctx: PluginContext, req: PayloadRequest, videoId: string, selfId: unknown): Promise<boolean> {
  for (const c of ctx.options.collections.values()) {
    if (c.target !== 'stream') continue
    const found = await req.payload.find({
      collection: c.slug,
      depth: 0,
      limit: 2,
      overrideAccess: true,
      pagination: false,
      req,
      where: { 'hostData.stream.videoId': { equals: videoId } },
    })
    if (found.docs.some((d) => d.id !== selfId)) return true
  }
  return false
}

/** Builds the hook for one stream collection. */
export function bindVideoTokenHook(ctx: PluginContext, stream: ResolvedStream, target: ResolvedCollection): CollectionBeforeChangeHook {
  return async function bindVideoToken({ data, originalDoc, req }) {
    if (req.context?.[INTERNAL_UPDATE_CONTEXT]) return data
    const incoming = (data.hostData?.stream ?? {}) as StreamHostData
    const token = incoming.videoToken
    if (data.hostData?.stream) data.hostData.stream.videoToken = null
    const receipt = req.file?.clientUploadContext as { videoId?: unknown } | undefined
    const receiptVideoId = typeof receipt?.videoId === 'string' ? receipt.videoId : undefined

    // Stream collections leave type checks to the plugin (see README): files sent through the CMS itself.
    if (req.file && !receipt && target.mimeTypes?.length && !validateMimeType(req.file.mimetype, target.mimeTypes)) {
      refuse(`Files of type ${req.file.mimetype} are not accepted by this collection.`, 'file')
    }
    if (!token) {
      if (receiptVideoId) refuse('A video uploaded through TUS must be saved with its hostData.stream.videoToken.')
      return data
    }
    const claims = await verifyVideoToken(req.payload.secret, token)
    if (!claims || claims.libraryId !== stream.libraryId) refuse('The video token is invalid or expired.')
    if (claims.user !== userKey(req)) refuse('The video token was issued to another user.')
    if (receiptVideoId && receiptVideoId !== claims.videoId) refuse('The video token does not belong to the uploaded file.')
    const previous = (originalDoc as { hostData?: { stream?: StreamHostData } } | undefined)?.hostData?.stream
    // A video the host failed to take or encode may be replaced by a new upload (the admin's retry).
    const replaceable = previous?.status === 'failed' || previous?.status === 'uploadFailed'
    if (previous?.videoId && previous.videoId !== claims.videoId && !replaceable) {
      refuse('This document is already bound to another video; upload a new document instead.')
    }
    if (await boundElsewhere(ctx, req, claims.videoId, (originalDoc as { id?: unknown } | undefined)?.id)) {
      refuse('This video already belongs to another document.')
    }

    const next: StreamHostData = { ...staticStreamData(stream, claims.videoId), status: 'uploading', videoToken: null }
    const video = await readVideo(stream, claims.videoId)
    // As a storage receipt for a missing object: a document for a video the host no longer has would stay
    // `uploading` forever. A host that cannot answer is not a refusal: the callbacks catch the status up.
    if (video === null) refuse(`The video ${claims.videoId} is not on the streaming host (it was deleted there): upload the file again.`)
    if (video) {
      Object.assign(next, videoObjectData(video))
      next.status = statusFromVideoObject(video.status)
      // The completion callback may have arrived before this save (out of order): catch up now.
      if (next.status === 'finished' && stream.mp4Fallback) next.resolutions = await mp4Resolutions(stream, claims.videoId).catch(() => [])
    }
    data.hostData = { ...(data.hostData ?? {}), stream: next }
    return data
  }
}
