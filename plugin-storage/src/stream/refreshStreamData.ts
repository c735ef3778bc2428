/**
 * @module stream/refreshStreamData
 * Reads what players need about a video from the stream API (progress, resolutions, MP4 fallback URLs)
 * and shapes it as `hostData.stream` fields.
 */
import { streamApiConfig, streamUrls } from '../context.js'
import type { ResolvedStream } from '../options/resolveOptions.js'
import type { StreamHostData } from '../types.js'
import { getMp4Resolutions, getVideo, type StreamVideo } from '../upstream/streamApi.js'

/** Fields derived from the video id alone (no upstream call). */
export function staticStreamData(stream: ResolvedStream, videoId: string): StreamHostData {
  const { playlistUrl, thumbnailUrl } = streamUrls(stream, videoId)
  return { libraryId: stream.libraryId, playlistUrl, thumbnailUrl, videoId }
}

/** Fields read from the host: progress and available resolutions. */
export function videoObjectData(video: StreamVideo): StreamHostData {
  return {
    availableResolutions: video.availableResolutions ?? null,
    encodeProgress: typeof video.encodeProgress === 'number' ? video.encodeProgress : null,
  }
}

/** MP4 fallback renditions as `{resolution, url}` on the stream pull zone. */
export async function mp4Resolutions(stream: ResolvedStream, videoId: string): Promise<Array<{ resolution: string; url: string }>> {
  const list = await getMp4Resolutions(streamApiConfig(stream), videoId)
  const base = `${stream.cdnUrl}/${encodeURIComponent(videoId)}`
  return list.map((r) => ({ resolution: r.resolution, url: `${base}/${r.path.replace(/^\/+/, '')}` }))
}

/** Reads the video; undefined when the host cannot answer (callers keep what they have). */
export async function readVideo(stream: ResolvedStream, videoId: string): Promise<StreamVideo | undefined> {
  try {
    return await getVideo(streamApiConfig(stream), videoId)
  } catch {
    return undefined
  }
}
