/**
 * @module stream/playbackUrls
 * What a player needs for one video: the HLS playlist, the MP4 fallback renditions and the thumbnail
 * on the stream pull zone; token-signed and short-lived when the pull zone has token authentication.
 * The HLS URL carries a directory token in its path (`/bcdn_token=...&expires=...&token_path=/{guid}/`,
 * the host's "directory" URLs): the playlist's relative rendition and segment URLs inherit it, which a
 * query token would not give them. MP4 and thumbnail get plain query tokens for their own path.
 */
import { createHmac } from 'node:crypto'

import type { ResolvedStream } from '../options/resolveOptions.js'
import type { PlaybackUrls, StreamHostData } from '../types.js'
import { signCdnUrl } from '../upstream/signatures.js'

/**
 * A directory token embedded after the origin. Signed data (HS256 scheme): `token_path + expires +
 * "token_path=" + token_path`, i.e. the signature path is the allowed prefix and `token_path` is the one
 * signed parameter.
 */
export function signDirectoryUrl(url: string, directory: string, key: string, expires: number): string {
  const parsed = new URL(url)
  const token = `HS256-${createHmac('sha256', key).update(`${directory}${expires}token_path=${directory}`).digest('base64url')}`
  return `${parsed.origin}/bcdn_token=${token}&expires=${expires}&token_path=${encodeURIComponent(directory)}${parsed.pathname}${parsed.search}`
}

/** Builds the playback answer of a video; signs every URL when `stream.tokenAuth` is set. */
export function playbackUrls(stream: ResolvedStream, data: StreamHostData & { videoId: string }, now = Date.now()): PlaybackUrls {
  const base = `${stream.cdnUrl}/${encodeURIComponent(data.videoId)}`
  const hls = `${base}/playlist.m3u8`
  const thumbnail = `${base}/thumbnail.jpg`
  // Stored MP4 URLs are rebuilt on the configured pull zone (the zone may have moved since encoding).
  const mp4 = (data.resolutions ?? []).map((r) => ({ resolution: r.resolution, url: `${base}/${r.url.slice(r.url.lastIndexOf('/') + 1)}` }))
  const auth = stream.tokenAuth
  if (!auth) return { hls, mp4, thumbnail }
  const expires = Math.floor(now / 1000) + auth.expiresIn
  const directory = `${decodeURIComponent(new URL(base).pathname)}/`
  const sign = (url: string) => signCdnUrl(url, auth.key, auth.expiresIn, now)
  return {
    expiresAt: new Date(expires * 1000).toISOString(),
    hls: signDirectoryUrl(hls, directory, auth.key, expires),
    mp4: mp4.map((r) => ({ resolution: r.resolution, url: sign(r.url) })),
    thumbnail: sign(thumbnail),
  }
}
