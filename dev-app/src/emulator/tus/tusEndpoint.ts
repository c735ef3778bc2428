/**
 * @module emulator/tus/tusEndpoint
 * The TUS upload endpoint (`/tusupload`), built on @tus/server + @tus/file-store (resumable: HEAD and
 * PATCH with offsets, CORS with the tus headers exposed). Creation is authorised like the host does:
 * `AuthorizationSignature`, `AuthorizationExpire` (UNIX seconds, in the future), `VideoId`,
 * `LibraryId` headers, for an existing video that has received no upload yet. A finished upload
 * marks the video Uploaded and starts the encoding simulation.
 */
import { FileStore } from '@tus/file-store'
import { EVENTS, Server } from '@tus/server'
import type { ServerOptions } from '@tus/server'
import { rm } from 'node:fs/promises'
import path from 'node:path'
import { safeEqual } from '../auth/safeEqual.js'
import type { EmulatorContext, UpstreamHandler } from '../context.js'
import { simulateEncoding } from '../encoding/simulateEncoding.js'
import { VideoStatus } from '../stream/statuses.js'
import { findVideo } from '../tenants.js'
import { tusSignature } from './tusSignature.js'

export const TUS_PATH = '/tusupload'
const AUTH_HEADERS = ['AuthorizationSignature', 'AuthorizationExpire', 'VideoId', 'LibraryId']

type TusRequest = Parameters<NonNullable<ServerOptions['onUploadCreate']>>[0]

/** What @tus/server sends back when a hook throws it. */
function refusal(status_code: number, body: string): { status_code: number; body: string } {
  return { status_code, body: `${body}\n` }
}

export interface TusEndpoint {
  handler: UpstreamHandler
  /** Encoding simulations in flight, awaited on close. */
  pending: Set<Promise<void>>
  /** Starts (or restarts) the encoding simulation of an uploaded video. */
  startEncoding(guid: string): void
}

/** One endpoint for every library: an upload's `LibraryId` header picks the library, its video then names it. */
export function createTusEndpoint(ctx: EmulatorContext): TusEndpoint {
  const pending = new Set<Promise<void>>()

  const startEncoding = (guid: string): void => {
    const library = findVideo(ctx, guid)?.library
    if (!library) return
    const run = simulateEncoding(library, guid)
      .catch((error: unknown) => ctx.log(`encoding ${guid} crashed: ${(error as Error).message}`))
      .finally(() => pending.delete(run))
    pending.add(run)
  }

  const authorize = async (req: TusRequest, metadata: Record<string, string | null> | undefined, uploadId: string): Promise<void> => {
    const header = (name: string) => req.headers.get(name) ?? undefined
    const signature = header('AuthorizationSignature')
    const expire = header('AuthorizationExpire')
    const videoId = header('VideoId')
    const libraryId = header('LibraryId')
    if (!signature || !expire || !videoId || !libraryId) throw refusal(401, 'Missing authorization headers')
    const library = ctx.library(libraryId)
    if (!library) throw refusal(401, 'Unauthorized')
    if (!/^\d+$/.test(expire)) throw refusal(401, 'Invalid AuthorizationExpire')
    if (!safeEqual(signature.toLowerCase(), tusSignature(libraryId, library.options.apiKey, expire, videoId))) throw refusal(401, 'Invalid signature')
    if (Number(expire) * 1000 <= Date.now()) throw refusal(401, 'Authorization expired')
    const video = library.videos.get(videoId)
    if (!video) throw refusal(404, 'Video not found')
    if (video.status !== VideoStatus.Created) throw refusal(403, 'The video already has an upload')
    if (!metadata?.filetype || !metadata.title) throw refusal(400, 'Upload-Metadata must carry filetype and title')
    // A new upload for the same video replaces an unfinished earlier one (the client lost its URL).
    if (video.uploadId && video.uploadId !== uploadId) {
      const old = path.join(ctx.dirs.tus, video.uploadId)
      await Promise.all([rm(old, { force: true }), rm(`${old}.json`, { force: true })])
    }
    video.uploadId = uploadId
    video.storageSize = 0
    // Optional metadata the host applies to the video.
    const thumbnailTime = Number(metadata.thumbnailTime)
    if (metadata.thumbnailTime && Number.isFinite(thumbnailTime) && thumbnailTime >= 0) video.thumbnailTime = thumbnailTime
    if (metadata.collection) video.collectionId = metadata.collection
  }

  const server = new Server({
    path: TUS_PATH,
    datastore: new FileStore({ directory: ctx.dirs.tus }),
    allowedHeaders: AUTH_HEADERS,
    // The bytes of a finished upload are the video's original: the host does not let TUS delete them.
    disableTerminationForFinishedUploads: true,
    postReceiveInterval: 250,
    async onUploadCreate(req, upload) {
      await authorize(req, upload.metadata, upload.id)
      const videoId = req.headers.get('VideoId') ?? ''
      ctx.log(`tus upload created for ${videoId} (${upload.size ?? '?'} bytes)`)
      return { metadata: { ...upload.metadata, videoid: videoId } }
    },
    async onUploadFinish(_req, upload) {
      const found = findVideo(ctx, upload.metadata?.videoid ?? '')
      const video = found?.video
      if (!found || !video || video.uploadId !== upload.id || video.status !== VideoStatus.Created) return {}
      video.originalPath = path.join(ctx.dirs.tus, upload.id)
      video.storageSize = upload.offset
      video.status = VideoStatus.Uploaded
      video.originalKept = found.library.options.keepOriginals
      ctx.log(`tus upload finished for ${video.guid}`)
      startEncoding(video.guid)
      return {}
    },
  })
  server.on(EVENTS.POST_TERMINATE, (_req, _res, id) => {
    const video = ctx
      .libraries()
      .flatMap((library) => library.videos.list())
      .find((candidate) => candidate.uploadId === id)
    if (video && video.status === VideoStatus.Created) {
      video.uploadId = undefined
      video.storageSize = 0
    }
  })
  server.on(EVENTS.POST_RECEIVE, (_req, upload) => {
    const video = findVideo(ctx, upload.metadata?.videoid ?? '')?.video
    if (video && video.uploadId === upload.id && video.status === VideoStatus.Created) video.storageSize = upload.offset
  })

  const handler: UpstreamHandler = async (req, res, { rawPath }) => {
    if (rawPath !== TUS_PATH && !rawPath.startsWith(`${TUS_PATH}/`)) return false
    await server.handle(req, res)
    return true
  }
  return { handler, pending, startEncoding }
}
