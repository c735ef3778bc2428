/**
 * @module stream/playbackUrls
 * What a player needs for one video: the HLS playlist, the MP4 fallback renditions and the thumbnail
 * on the stream pull zone; token-signed and short-lived when the pull zone has token authentication.
 * The HLS URL carries a directory token in its path (`/bcdn_token=...&expires=...&token_path=/{guid}/`,
 * the host's "directory" URLs): the playlist's relative rendition and segment URLs inherit it, which a
 * query token would not give them. MP4 and thumbnail get plain query tokens for their own path.
 */
import type { ResolvedStream } from '../options/resolveOptions.js'
import type { PlaybackUrls, StreamHostData } from '../types.js'
import { urlBinding } from '../auth/urlBinding.js'
import { signCdnUrl } from '../upstream/signatures.js'
import { streamUrls } from './streamUrls.js'

/**
 * Builds the playback answer of a video; signs every URL when `stream.tokenAuth` is set, for the reader
 * whose request headers are given (its address, with `bindToAddress`: a 403 `HttpError` without one).
 */
export function playbackUrls(
  stream: ResolvedStream,
  data: StreamHostData & { videoId: string },
  headers?: Pick<Headers, 'get'>,
  now = Date.now(),
): PlaybackUrls {
  const urls = streamUrls(stream, data.videoId)
  const { playlist: hls, thumbnail } = urls
  const mp4 = (data.resolutions ?? []).map((r) => ({ resolution: r.resolution, url: urls.rendition(r.url) }))
  const auth = stream.tokenAuth
  if (!auth) return { hls, mp4, thumbnail }
  const sign = (url: string) => signCdnUrl(url, urlBinding(auth, stream.cdnUrl, url, headers, now))
  const playlist = urlBinding(auth, stream.cdnUrl, hls, headers, now)
  // The playlist's directory token opens the video's folder: its renditions and segments are relative URLs.
  const directory = decodeURIComponent(new URL(hls).pathname.replace(/[^/]*$/, ''))
  return {
    expiresAt: new Date(playlist.expires * 1000).toISOString(),
    hls: signCdnUrl(hls, { ...playlist, tokenPath: directory }, true),
    mp4: mp4.map((r) => ({ resolution: r.resolution, url: sign(r.url) })),
    thumbnail: sign(thumbnail),
  }
}
