/**
 * @module emulator/stream/streamApi
 * The stream API under `/stream`: `/library/{libraryId}/videos[/{guid}[/resolutions]]` with the
 * library's API key in `AccessKey`.
 */
import { rm } from 'node:fs/promises'
import type { ServerResponse } from 'node:http'
import path from 'node:path'
import { safeEqual } from '../auth/safeEqual.js'
import type { EmulatorContext, UpstreamHandler } from '../context.js'
import { safeDecode } from '../http/safeDecode.js'
import { readJsonBody } from '../http/readJsonBody.js'
import { sendJson } from '../http/sendJson.js'
import { toVideoObject } from './toVideoObject.js'
import { VideoStatus } from './statuses.js'
import type { VideoRecord } from './VideoStore.js'

const ROUTE = /^\/stream\/library\/([^/]+)\/videos(?:\/([^/]+)(\/resolutions)?)?\/?$/

function status(res: ServerResponse, code: number, message: string): void {
  sendJson(res, code, { success: code < 400, message, statusCode: code })
}

export const streamApi: UpstreamHandler = async (req, res, { rawPath, query }, ctx) => {
  if (!rawPath.startsWith('/stream/')) return false
  const match = ROUTE.exec(rawPath)
  const accessKey = req.headers.accesskey
  // Keys are per library: a key that does not open this library is the same refusal as no key.
  if (!safeEqual(typeof accessKey === 'string' ? accessKey : undefined, ctx.options.apiKey) || (match && match[1] !== String(ctx.options.libraryId))) {
    req.resume()
    sendJson(res, 401, { Message: 'Authorization has been denied for this request.' })
    return true
  }
  if (!match) {
    req.resume()
    status(res, 404, 'Not Found')
    return true
  }
  const guid = match[2] ? (safeDecode(match[2]) ?? '%') : undefined
  const resolutions = Boolean(match[3])
  if (!guid) {
    if (req.method === 'POST') return createVideo(req, res, ctx)
    if (req.method === 'GET') return listVideos(res, query, ctx)
    req.resume()
    status(res, 405, 'Method Not Allowed')
    return true
  }
  const video = ctx.videos.get(guid)
  if (!video) {
    req.resume()
    status(res, 404, 'Video not found')
    return true
  }
  if (resolutions) {
    if (req.method !== 'GET') status(res, 405, 'Method Not Allowed')
    else sendJson(res, 200, { success: true, message: null, statusCode: 200, data: resolutionsOf(video) })
    return true
  }
  switch (req.method) {
    case 'GET':
      sendJson(res, 200, toVideoObject(video))
      return true
    case 'POST': {
      const body = await readJsonBody(req)
      if (!body || typeof body !== 'object') {
        status(res, 400, 'Invalid request body')
        return true
      }
      const { title } = body as { title?: unknown }
      if (title !== undefined) {
        if (typeof title !== 'string' || title.trim() === '') {
          status(res, 400, 'The title must be a non-empty string')
          return true
        }
        video.title = title
      }
      status(res, 200, 'OK')
      return true
    }
    case 'DELETE':
      await deleteVideo(video, ctx)
      status(res, 200, 'OK')
      return true
    default:
      req.resume()
      status(res, 405, 'Method Not Allowed')
      return true
  }
}

async function createVideo(req: Parameters<UpstreamHandler>[0], res: ServerResponse, ctx: EmulatorContext): Promise<true> {
  const body = await readJsonBody(req)
  const { title, thumbnailTime, collectionId } = (body ?? {}) as { title?: unknown; thumbnailTime?: unknown; collectionId?: unknown }
  if (typeof title !== 'string' || title.trim() === '') {
    status(res, 400, 'The title field is required.')
    return true
  }
  if (thumbnailTime !== undefined && thumbnailTime !== null && (typeof thumbnailTime !== 'number' || !Number.isFinite(thumbnailTime) || thumbnailTime < 0)) {
    status(res, 400, 'thumbnailTime must be a non-negative number of milliseconds.')
    return true
  }
  const video = ctx.videos.create(title, typeof thumbnailTime === 'number' ? thumbnailTime : undefined, typeof collectionId === 'string' ? collectionId : '')
  ctx.log(`stream created video ${video.guid}`)
  sendJson(res, 200, toVideoObject(video))
  return true
}

function listVideos(res: ServerResponse, query: URLSearchParams, ctx: EmulatorContext): true {
  const page = Math.max(1, Number(query.get('page')) || 1)
  const itemsPerPage = Math.min(1000, Math.max(1, Number(query.get('itemsPerPage')) || 100))
  const all = ctx.videos.list()
  sendJson(res, 200, {
    totalItems: all.length,
    currentPage: page,
    itemsPerPage,
    items: all.slice((page - 1) * itemsPerPage, page * itemsPerPage).map(toVideoObject),
  })
  return true
}

async function deleteVideo(video: VideoRecord, ctx: EmulatorContext): Promise<void> {
  ctx.videos.delete(video.guid)
  ctx.videos.settle(video.guid)
  // The bytes live in the TUS store (finished or not): remove the file and @tus/file-store's metadata.
  const file = video.originalPath ?? (video.uploadId ? path.join(ctx.dirs.tus, video.uploadId) : undefined)
  if (file) await Promise.all([rm(file, { force: true }), rm(`${file}.json`, { force: true })])
  if (video.encodedDir) await rm(video.encodedDir, { force: true, recursive: true })
  ctx.log(`stream deleted video ${video.guid}`)
}

/** `GET .../resolutions` data, shaped like the real API's. */
function resolutionsOf(video: VideoRecord): Record<string, unknown> {
  const finished = video.status === VideoStatus.Finished
  return {
    videoId: video.guid,
    videoLibraryId: video.libraryId,
    availableResolutions: video.availableResolutions,
    configuredResolutions: video.availableResolutions,
    playlistResolutions: video.availableResolutions.map((resolution) => ({ resolution, path: `${resolution}/video.m3u8` })),
    storageResolutions: video.availableResolutions.map((resolution) => ({ resolution, path: `${resolution}/` })),
    mp4Resolutions: video.hasMP4Fallback ? video.mp4Heights.map((height) => ({ resolution: `${height}p`, path: `play_${height}p.mp4` })) : [],
    storageObjects: [],
    oldResolutions: [],
    hasBothOldAndNewResolutionFormat: false,
    hasOriginal: video.originalPath !== undefined,
    isFinished: finished,
  }
}
