/**
 * @module stream/refreshStreamData
 * Reads what players need about a video from the stream API (progress, resolutions, MP4 fallback URLs)
 * and shapes it as `hostData.stream` fields.
 */
import { streamApiConfig } from '../context.js'
import type { ResolvedStream } from '../options/resolveOptions.js'
import type { StreamHostData } from '../types.js'
import { renditionFile } from './streamUrls.js'
import { getMp4Resolutions, getVideo, type StreamVideo } from '../upstream/streamApi.js'
import { UpstreamError } from '../errors.js'

/** What a document stores of a video besides its status: its id and library (the URLs are computed when read). */
export function staticStreamData(stream: ResolvedStream, videoId: string): StreamHostData {
  return { libraryId: stream.libraryId, playlistUrl: null, thumbnailUrl: null, videoId }
}

/** Fields read from the host: progress and available resolutions. */
export function videoObjectData(video: StreamVideo): StreamHostData {
  return {
    availableResolutions: video.availableResolutions ?? null,
    encodeProgress: typeof video.encodeProgress === 'number' ? video.encodeProgress : null,
  }
}

/** MP4 fallback renditions as `{resolution, url}`, `url` the rendition's file name (the read hook makes it a URL). */
export async function mp4Resolutions(stream: ResolvedStream, videoId: string): Promise<Array<{ resolution: string; url: string }>> {
  const list = await getMp4Resolutions(streamApiConfig(stream), videoId)
  return list.map((r) => ({ resolution: r.resolution, url: renditionFile(r.path) }))
}

/**
 * Reads the video: `null` when the host says there is no such video (deleted, or never created there),
 * `undefined` when it cannot answer (callers keep what they have).
 */
export async function readVideo(stream: ResolvedStream, videoId: string): Promise<StreamVideo | null | undefined> {
  try {
    return await getVideo(streamApiConfig(stream), videoId)
  } catch (err) {
    return err instanceof UpstreamError && err.isNotFound() ? null : undefined
  }
}
