/**
 * @module adapter/streamAdapter
 * The adapter of a collection whose videos live on the streaming host. Browser
 * uploads go through tus-auth and never reach this adapter's `handleUpload`; it handles the remaining
 * case of a video sent to the CMS itself. Delete removes the video on the host; the file route
 * redirects to the video's original on the stream pull zone.
 */
import { APIError, Forbidden } from 'payload'

import { checkTusAccess } from '../auth/tusAccess.js'
import { TUS_UPLOAD_INSTRUCTION } from '../constants.js'
import { streamApiConfig } from '../context.js'
import { streamUrls } from '../stream/streamUrls.js'
import type { ResolvedStream } from '../options/resolveOptions.js'
import { staticStreamData } from '../stream/refreshStreamData.js'
import type { StreamHostData } from '../types.js'
import { createVideo, deleteVideo } from '../upstream/streamApi.js'
import { tusUpload } from '../upstream/tusUpload.js'
import { UpstreamError } from '../errors.js'
import type { HostAdapter, UploadInstructionsCapability } from '../wiring/hostAdapter.js'
import { undoCreate } from './uploadTracker.js'

type WithStream = { hostData?: { stream?: StreamHostData } }

/**
 * The 4.x capability: a 4.x admin asks `POST /api/upload-instructions` before it saves a video document.
 * The answer is a `dispatch` instruction: the browser's TUS field (which uploaded the video through
 * tus-auth already, with progress and resume) answers it with the receipt. No bytes, no server work
 * beyond the same access check as tus-auth.
 */
function tusUploadInstructions(stream: ResolvedStream): UploadInstructionsCapability {
  return {
    generate: async (args) => {
      const { req } = args
      if (!args.overrideAccess) {
        if (!req.user) throw new Forbidden(req.t)
        await checkTusAccess(stream, req, { collection: args.collectionSlug, filename: args.filename, filesize: args.filesize, filetype: args.mimeType }).catch(
          () => {
            throw new Forbidden(req.t)
          },
        )
      }
      return {
        type: 'dispatch' as const,
        name: TUS_UPLOAD_INSTRUCTION,
        file: { filename: args.filename, mimeType: args.mimeType, size: args.filesize, uploadReference: {} },
      }
    },
    useInAdmin: true,
  }
}

/** The adapter of one stream collection. */
export function streamAdapter(stream: ResolvedStream): HostAdapter {
  const api = streamApiConfig(stream)
  return {
    name: 'storage-host-stream',
    // 4.x reads `uploadInstructions`; 3.x's admin uses the provider's upload handler instead.
    ...(stream.tus ? { uploadInstructions: tusUploadInstructions(stream) } : {}),
    handleDelete: async ({ doc }) => {
      const videoId = (doc as WithStream).hostData?.stream?.videoId
      if (videoId) await deleteVideo(api, videoId)
    },
    handleUpload: async ({ collection, data, file, req }) => {
      let videoId: string | undefined
      try {
        const title = typeof data?.title === 'string' && data.title ? data.title : file.filename
        const video = await createVideo(api, title, stream.thumbnailTime)
        videoId = video.guid
        const input =
          file.tempFilePath && (!file.buffer || file.buffer.length === 0) ? { path: file.tempFilePath, size: file.filesize } : { buffer: file.buffer! }
        await tusUpload({ apiKey: stream.apiKey, libraryId: stream.libraryId, mimeType: file.mimeType, title, tusEndpoint: stream.tusEndpoint, videoId }, input)
        // Merged into the document by the upload hook.
        const stored: StreamHostData = { ...staticStreamData(stream, videoId), status: 'uploaded' }
        return { hostData: { stream: stored } }
      } catch (err) {
        if (videoId) await deleteVideo(api, videoId).catch(() => undefined)
        await undoCreate(req, collection.slug, (data as { id?: unknown } | undefined)?.id)
        const reason = err instanceof UpstreamError ? err.message : 'the streaming host could not be reached'
        throw new APIError(`Sending "${file.filename}" to the streaming host failed (${reason}). Nothing was saved.`, 502, undefined, true)
      }
    },
    staticHandler: async (req, { doc, params }) => {
      // 4.x reads the bytes of a client upload back through here before saving; a video's bytes are on
      // the streaming host and the CMS needs none of them: answer an empty file (the plugin's
      // beforeOperation hook verifies the reference, the bind hook the video token).
      if ((params as { uploadReference?: unknown }).uploadReference !== undefined) {
        return new Response(new Uint8Array(0), { status: 200 })
      }
      // Payload passes the document only when read access is a query; otherwise look it up (with access).
      let videoId = (doc as WithStream | undefined)?.hostData?.stream?.videoId
      if (!videoId) {
        const found = await req.payload.find({
          collection: params.collection,
          depth: 0,
          limit: 1,
          overrideAccess: false,
          pagination: false,
          req,
          where: { filename: { equals: params.filename } },
        })
        videoId = (found.docs[0] as WithStream | undefined)?.hostData?.stream?.videoId
      }
      if (!videoId) return new Response(null, { status: 404 })
      return new Response(null, { headers: { 'Cache-Control': 'private, no-store', Location: streamUrls(stream, videoId).original }, status: 302 })
    },
  }
}
