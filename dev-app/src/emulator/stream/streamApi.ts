/**
 * @module emulator/stream/streamApi
 * The stream API under `/stream`, with the library's API key in `AccessKey`:
 * `/library/{libraryId}/videos` (list, paged and ordered; create), `.../videos/{guid}` (get, update,
 * `PUT` upload, delete), `.../videos/{guid}/resolutions`, `.../videos/{guid}/captions/{srclang}` and
 * `/library/{libraryId}/collections[/{id}]`.
 */
import { rm } from 'node:fs/promises'
import type { ServerResponse } from 'node:http'
import path from 'node:path'
import { safeEqual } from '../auth/safeEqual.js'
import type { EmulatorContext, UpstreamHandler } from '../context.js'
import { safeDecode } from '../http/safeDecode.js'
import { readJsonBody } from '../http/readJsonBody.js'
import { sendJson } from '../http/sendJson.js'
import { apiStatus as status } from './apiStatus.js'
import { captionsApi } from './captionsApi.js'
import { collectionsApi } from './collectionsApi.js'
import { resolutionsOf } from './resolutionsOf.js'
import { toVideoObject } from './toVideoObject.js'
import { updateVideo } from './updateVideo.js'
import { uploadVideo } from './uploadVideo.js'
import type { VideoRecord } from './VideoStore.js'

const ROUTE = /^\/stream\/library\/([^/]+)\/(videos|collections)(?:\/([^/]+)(?:\/(resolutions|captions\/[^/]+))?)?\/?$/

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
  if (!match || (match[2] === 'collections' && match[4])) {
    req.resume()
    status(res, 404, 'Not Found')
    return true
  }
  const id = match[3] ? (safeDecode(match[3]) ?? '%') : undefined
  if (match[2] === 'collections') {
    await collectionsApi(req, res, id, query, ctx)
    return true
  }
  const guid = id
  const sub = match[4]
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
  if (sub === 'resolutions') {
    req.resume()
    if (req.method !== 'GET') status(res, 405, 'Method Not Allowed')
    else sendJson(res, 200, { success: true, message: null, statusCode: 200, data: resolutionsOf(video) })
    return true
  }
  if (sub) {
    await captionsApi(req, res, video, safeDecode(sub.slice('captions/'.length)) ?? '', ctx)
    return true
  }
  switch (req.method) {
    case 'GET':
      req.resume()
      sendJson(res, 200, toVideoObject(video))
      return true
    case 'POST':
      await updateVideo(req, res, video, ctx)
      return true
    case 'PUT':
      await uploadVideo(req, res, video, ctx)
      return true
    case 'DELETE':
      req.resume()
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

/**
 * `?page=&itemsPerPage=&orderBy=date|title&collection=`: the API's default order is by date,
 * newest first; ties (same millisecond) are broken by guid so that paging is stable.
 */
function listVideos(res: ServerResponse, query: URLSearchParams, ctx: EmulatorContext): true {
  const page = Math.max(1, Number(query.get('page')) || 1)
  const itemsPerPage = Math.min(1000, Math.max(1, Number(query.get('itemsPerPage')) || 100))
  const collection = query.get('collection')
  const byTitle = query.get('orderBy') === 'title'
  const all = ctx.videos
    .list()
    .filter((video) => !collection || video.collectionId === collection)
    .sort((a, b) =>
      byTitle
        ? a.title.localeCompare(b.title) || a.guid.localeCompare(b.guid)
        : b.dateUploaded.getTime() - a.dateUploaded.getTime() || a.guid.localeCompare(b.guid),
    )
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
  await rm(path.join(ctx.dirs.captions, video.guid), { force: true, recursive: true })
  ctx.log(`stream deleted video ${video.guid}`)
}
