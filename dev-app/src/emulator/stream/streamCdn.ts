/**
 * @module emulator/stream/streamCdn
 * The stream pull zone: `/stream-cdn/{libraryId}/{guid}/` + `playlist.m3u8` (HLS master playlist of
 * the renditions encoded so far), `{h}p/video.m3u8` and `{h}p/segment_{n}.ts` (each rendition's variant
 * playlist and MPEG-TS segments), `thumbnail.jpg` (a frame of the video), `preview.webp` (a small
 * placeholder image), `play_{h}p.mp4` (MP4 fallback, only for heights the encoder produced), `original`
 * (only when the library kept it: `originalKept`) and `captions/{srclang}.vtt` (tracks added through the API).
 * Nothing is served for a video that has not been uploaded; renditions appear as encoding proceeds.
 * A video ffmpeg could not encode (see encoding/simulateEncoding.ts) keeps the old stand-ins: a
 * placeholder thumbnail and the original bytes as its MP4 files; its variant playlists 404.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { UpstreamHandler } from '../context.js'
import { safeDecode } from '../http/safeDecode.js'
import { previewWebp } from '../assets/previewWebp.js'
import { thumbnailJpeg } from '../assets/thumbnailJpeg.js'
import { answerPreflight, corsHeaders } from '../http/cors.js'
import { sendText } from '../http/sendJson.js'
import { serveFile } from '../http/serveFile.js'
import { verifyCdnToken } from '../cdn/verifyCdnToken.js'
import { captionFile } from './captionsApi.js'
import { VideoStatus } from './statuses.js'
import type { VideoRecord } from './VideoStore.js'

/** `/stream-cdn/{libraryId}/{guid}/[{h}p/|captions/]{file}`: one folder level, for the HLS renditions and captions. */
const ROUTE = /^\/stream-cdn\/([^/]+)\/([^/]+)\/((?:\d+p\/|captions\/)?[^/]+)$/
const VARIANT_FILE = /^(\d+p)\/(video\.m3u8|segment_\d{3,}\.ts)$/
/** Nominal bandwidths per rendition height, for the master playlist. */
const BANDWIDTH: Record<number, number> = { 240: 400_000, 360: 800_000, 480: 1_400_000, 720: 2_800_000, 1080: 5_000_000, 1440: 8_000_000, 2160: 14_000_000 }

/** An HLS master playlist (RFC 8216) listing one variant stream per rendition. */
export function masterPlaylist(video: VideoRecord): string {
  const lines = ['#EXTM3U', '#EXT-X-VERSION:3', '#EXT-X-INDEPENDENT-SEGMENTS']
  // What ffmpeg wrote (encoding/ffmpeg.ts): H.264 Main (level 4.0 covers up to 1080p30), AAC-LC when the source had sound.
  const codecs = video.hasAudio === false ? 'avc1.4d4028' : 'avc1.4d4028,mp4a.40.2'
  for (const resolution of video.availableResolutions) {
    const height = Number.parseInt(resolution, 10)
    const width = video.height > 0 ? Math.round(((video.width / video.height) * height) / 2) * 2 : Math.round((height * 16) / 9 / 2) * 2
    lines.push(`#EXT-X-STREAM-INF:BANDWIDTH=${BANDWIDTH[height] ?? height * 4000},RESOLUTION=${width}x${height},CODECS="${codecs}"`, `${resolution}/video.m3u8`)
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
    if (video.originalKept === false) {
      notFound()
      return true
    }
    await serveFile({ req, res, filePath: video.originalPath, contentType: 'application/octet-stream', headers: cors })
    return true
  }
  if (file === 'playlist.m3u8' && encoded) {
    const playlist = masterPlaylist(video)
    res.writeHead(200, { ...cors, 'Content-Type': 'application/x-mpegURL', 'Content-Length': String(Buffer.byteLength(playlist)) })
    res.end(req.method === 'HEAD' ? undefined : playlist)
    return true
  }
  if (file === 'thumbnail.jpg' && encoded && video.encodedDir) {
    await serveFile({ req, res, filePath: join(video.encodedDir, 'thumbnail.jpg'), contentType: 'image/jpeg', headers: cors })
    return true
  }
  const image =
    file === 'thumbnail.jpg' ? { bytes: thumbnailJpeg, type: 'image/jpeg' } : file === 'preview.webp' ? { bytes: previewWebp, type: 'image/webp' } : undefined
  if (image && encoded) {
    res.writeHead(200, { ...cors, 'Content-Type': image.type, 'Content-Length': String(image.bytes.length) })
    res.end(req.method === 'HEAD' ? undefined : image.bytes)
    return true
  }
  const variant = VARIANT_FILE.exec(file)
  if (variant && video.encodedDir && video.availableResolutions.includes(variant[1] ?? '')) {
    const isPlaylist = variant[2] === 'video.m3u8'
    const filePath = join(video.encodedDir, variant[1] ?? '', variant[2] ?? '')
    if (!existsSync(filePath)) {
      notFound()
      return true
    }
    await serveFile({
      req,
      res,
      filePath,
      contentType: isPlaylist ? 'application/x-mpegURL' : 'video/mp2t',
      headers: cors,
    })
    return true
  }
  const caption = /^captions\/(.+)\.vtt$/.exec(file)
  if (caption && video.captions?.some((track) => track.srclang === caption[1])) {
    await serveFile({ req, res, filePath: captionFile(ctx, video.guid, caption[1] ?? ''), contentType: 'text/vtt', headers: cors })
    return true
  }
  const mp4 = /^play_(\d+)p\.mp4$/.exec(file)
  if (mp4 && video.hasMP4Fallback && video.mp4Heights.includes(Number(mp4[1]))) {
    // Without a real encode (no ffmpeg, no frames) every fallback rendition is the original bytes.
    const filePath = video.encodedDir ? join(video.encodedDir, `play_${mp4[1]}p.mp4`) : video.originalPath
    await serveFile({ req, res, filePath, contentType: 'video/mp4', headers: cors })
    return true
  }
  notFound()
  return true
}
