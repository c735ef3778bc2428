/**
 * @module emulator/stream/streamCdn
 * The stream pull zone: `/stream-cdn/{libraryId}/{guid}/` + `playlist.m3u8` (HLS master playlist of
 * the renditions encoded so far), `thumbnail.jpg` and `preview.webp` (real small images), `play_{h}p.mp4` (MP4
 * fallback: the original bytes, only for heights the encoder produced) and `original`.
 * Nothing is served for a video that has not been uploaded; renditions appear as encoding proceeds.
 */
import type { UpstreamHandler } from '../context.js'
import { safeDecode } from '../http/safeDecode.js'
import { previewWebp } from '../assets/previewWebp.js'
import { thumbnailJpeg } from '../assets/thumbnailJpeg.js'
import { answerPreflight, corsHeaders } from '../http/cors.js'
import { sendText } from '../http/sendJson.js'
import { serveFile } from '../http/serveFile.js'
import { verifyCdnToken } from '../cdn/verifyCdnToken.js'
import { VideoStatus } from './statuses.js'
import type { VideoRecord } from './VideoStore.js'

const ROUTE = /^\/stream-cdn\/([^/]+)\/([^/]+)\/([^/]+)$/
/** Nominal bandwidths per rendition height, for the master playlist. */
const BANDWIDTH: Record<number, number> = { 240: 400_000, 360: 800_000, 480: 1_400_000, 720: 2_800_000, 1080: 5_000_000, 1440: 8_000_000, 2160: 14_000_000 }

/** An HLS master playlist (RFC 8216) listing one variant stream per rendition. */
export function masterPlaylist(video: VideoRecord): string {
  const lines = ['#EXTM3U', '#EXT-X-VERSION:3', '#EXT-X-INDEPENDENT-SEGMENTS']
  for (const resolution of video.availableResolutions) {
    const height = Number.parseInt(resolution, 10)
    const width = video.height > 0 ? Math.round(((video.width / video.height) * height) / 2) * 2 : Math.round((height * 16) / 9 / 2) * 2
    lines.push(
      `#EXT-X-STREAM-INF:BANDWIDTH=${BANDWIDTH[height] ?? height * 4000},RESOLUTION=${width}x${height},CODECS="avc1.640028,mp4a.40.2"`,
      `${resolution}/video.m3u8`,
    )
  }
  return `${lines.join('\n')}\n`
}

export const streamCdn: UpstreamHandler = async (req, res, { rawPath, query }, ctx) => {
  if (!rawPath.startsWith('/stream-cdn/')) return false
  if (req.method === 'OPTIONS') {
    answerPreflight(req, res, ['GET', 'HEAD'])
    return true
  }
  const cors = corsHeaders(req, ['Content-Length', 'Content-Range', 'ETag'])
  const notFound = () => sendText(res, 404, 'Not Found', undefined, cors)
  const match = ROUTE.exec(rawPath)
  if (!match || (req.method !== 'GET' && req.method !== 'HEAD') || match[1] !== String(ctx.options.libraryId)) {
    notFound()
    return true
  }
  const tokenKey = ctx.options.streamTokenAuthKey
  if (tokenKey) {
    // As on the storage pull zone: the signed path is the URL's full path or the path the zone sees (`/{guid}/{file}`).
    const check = (path: string) => verifyCdnToken({ key: tokenKey, path, query, clientIp: req.socket.remoteAddress })
    const reason = check(safeDecode(rawPath) ?? rawPath)
    if (reason && check(`/${safeDecode(match[2] ?? '') ?? ''}/${match[3] ?? ''}`)) {
      ctx.log(`stream cdn refused ${rawPath}: ${reason}`)
      sendText(res, 403, '403 Forbidden', undefined, cors)
      return true
    }
  }
  const video = ctx.videos.get(safeDecode(match[2] ?? '') ?? '')
  const file = match[3] ?? ''
  if (!video?.originalPath) {
    notFound()
    return true
  }
  const encoded = video.availableResolutions.length > 0 && video.status !== VideoStatus.Error
  if (file === 'original') {
    await serveFile({ req, res, filePath: video.originalPath, contentType: 'application/octet-stream', headers: cors })
    return true
  }
  if (file === 'playlist.m3u8' && encoded) {
    const playlist = masterPlaylist(video)
    res.writeHead(200, { ...cors, 'Content-Type': 'application/x-mpegURL', 'Content-Length': String(Buffer.byteLength(playlist)) })
    res.end(req.method === 'HEAD' ? undefined : playlist)
    return true
  }
  const image =
    file === 'thumbnail.jpg' ? { bytes: thumbnailJpeg, type: 'image/jpeg' } : file === 'preview.webp' ? { bytes: previewWebp, type: 'image/webp' } : undefined
  if (image && encoded) {
    res.writeHead(200, { ...cors, 'Content-Type': image.type, 'Content-Length': String(image.bytes.length) })
    res.end(req.method === 'HEAD' ? undefined : image.bytes)
    return true
  }
  const mp4 = /^play_(\d+)p\.mp4$/.exec(file)
  if (mp4 && video.hasMP4Fallback && video.mp4Heights.includes(Number(mp4[1]))) {
    // The emulator does not transcode: every fallback rendition is the original bytes.
    await serveFile({ req, res, filePath: video.originalPath, contentType: 'video/mp4', headers: cors })
    return true
  }
  notFound()
  return true
}
