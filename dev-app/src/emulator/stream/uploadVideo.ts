/**
 * @module emulator/stream/uploadVideo
 * `PUT /library/{id}/videos/{guid}` (Upload Video): the request body is the video file, for a video
 * created through the API that has no upload yet (as over TUS: one upload per video). The bytes are
 * streamed to a temporary file and renamed once complete, then the video is Uploaded and encoded like
 * a finished TUS upload.
 */
import { randomUUID } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { rename, rm } from 'node:fs/promises'
import type { IncomingMessage, ServerResponse } from 'node:http'
import path from 'node:path'
import { pipeline } from 'node:stream/promises'
import type { EmulatorContext } from '../context.js'
import { apiStatus } from './apiStatus.js'
import { VideoStatus } from './statuses.js'
import type { VideoRecord } from './VideoStore.js'

export async function uploadVideo(req: IncomingMessage, res: ServerResponse, video: VideoRecord, ctx: EmulatorContext): Promise<void> {
  if (video.status !== VideoStatus.Created || video.uploadId) {
    req.resume()
    return apiStatus(res, 400, 'The video already has an upload')
  }
  const id = `put-${randomUUID()}`
  const partial = path.join(ctx.dirs.tmp, id)
  const target = path.join(ctx.dirs.tus, id)
  // Claimed at once: a TUS upload for the same video started meanwhile is refused.
  video.uploadId = id
  let size = 0
  req.on('data', (chunk: Buffer) => void (size += chunk.length))
  try {
    await pipeline(req, createWriteStream(partial, { flags: 'wx' }))
    await rename(partial, target)
  } catch (error) {
    await rm(partial, { force: true })
    if (ctx.videos.get(video.guid) === video) video.uploadId = undefined
    throw error
  }
  if (size === 0 || ctx.videos.get(video.guid) !== video) {
    await rm(target, { force: true })
    video.uploadId = undefined
    return apiStatus(res, 400, 'The request body is empty')
  }
  video.originalPath = target
  video.storageSize = size
  video.status = VideoStatus.Uploaded
  video.originalKept = ctx.options.keepOriginals
  ctx.log(`stream upload finished for ${video.guid} (${size} bytes)`)
  ctx.startEncoding(video.guid)
  apiStatus(res, 200, 'Video uploaded successfully')
}
