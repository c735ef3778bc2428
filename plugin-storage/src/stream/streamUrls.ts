/**
 * @module stream/streamUrls
 * A video's URLs on its library's pull zone, made from the options in force whenever they are needed:
 * documents store the video id and the MP4 renditions' file names only, so a moved pull zone, library
 * or host (a site restored on other ports) serves the right URLs without a write.
 */
import type { ResolvedStream } from '../options/resolveOptions.js'

/** The player URLs of a video, plus an MP4 rendition by its file name (`play_720p.mp4`). */
export interface StreamUrls {
  playlist: string
  thumbnail: string
  original: string
  rendition(file: string): string
}

/** The URLs of `videoId` on `stream`'s pull zone. */
export function streamUrls(stream: ResolvedStream, videoId: string): StreamUrls {
  const base = `${stream.cdnUrl}/${encodeURIComponent(videoId)}`
  return {
    original: `${base}/original`,
    playlist: `${base}/playlist.m3u8`,
    rendition: (file) => `${base}/${renditionFile(file)}`,
    thumbnail: `${base}/thumbnail.jpg`,
  }
}

/**
 * What a document stores of a rendition: its file name, the last path segment (the host answers
 * `/play_720p.mp4`; a document written before URLs were computed at read time holds a whole URL).
 */
export const renditionFile = (value: string): string => value.slice(value.lastIndexOf('/') + 1)
