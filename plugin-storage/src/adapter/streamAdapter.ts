/**
 * @module adapter/streamAdapter
 * The plugin-cloud-storage adapter of a collection whose videos live on the streaming host. Browser
 * uploads go through tus-auth and never reach this adapter's `handleUpload`; it handles the remaining
 * case of a video sent to the CMS itself. Delete removes the video on the host; the file route
 * redirects to the video's original on the stream pull zone.
 */
import type { Adapter } from '@payloadcms/plugin-cloud-storage/types'
import { APIError } from 'payload'

import { streamApiConfig, streamUrls } from '../context.js'
import type { ResolvedStream } from '../options/resolveOptions.js'
import { staticStreamData } from '../stream/refreshStreamData.js'
import type { StreamHostData } from '../types.js'
import { createVideo, deleteVideo } from '../upstream/streamApi.js'
import { tusUpload } from '../upstream/tusUpload.js'
import { UpstreamError } from '../upstream/UpstreamError.js'
import { undoCreate } from './uploadTracker.js'

type WithStream = { hostData?: { stream?: StreamHostData } }

/** Builds the adapter factory for a stream collection. */
export function streamAdapter(stream: ResolvedStream): Adapter {
  const api = streamApiConfig(stream)
  return () => ({
    name: 'storage-host-stream',
    generateURL: ({ data }) => {
      const videoId = (data as WithStream | undefined)?.hostData?.stream?.videoId
      return videoId ? streamUrls(stream, videoId).playlistUrl : ''
    },
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
        const input = file.tempFilePath && (!file.buffer || file.buffer.length === 0) ? { path: file.tempFilePath, size: file.filesize } : { buffer: file.buffer }
        await tusUpload({ apiKey: stream.apiKey, libraryId: stream.libraryId, mimeType: file.mimeType, title, tusEndpoint: stream.tusEndpoint, videoId }, input)
        return { hostData: { stream: { ...staticStreamData(stream, videoId), status: 'uploaded' } } } as never
      } catch (err) {
        if (videoId) await deleteVideo(api, videoId).catch(() => undefined)
        await undoCreate(req, collection.slug, (data as { id?: unknown } | undefined)?.id)
        const reason = err instanceof UpstreamError ? err.message : 'the streaming host could not be reached'
        throw new APIError(`Sending "${file.filename}" to the streaming host failed (${reason}). Nothing was saved.`, 502, undefined, true)
      }
    },
    requiresClientUploadReceipt: true,
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
      return new Response(null, { headers: { 'Cache-Control': 'private, no-store', Location: streamUrls(stream, videoId).originalUrl }, status: 302 })
    },
  })
}
