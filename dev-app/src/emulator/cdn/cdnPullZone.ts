/**
 * @module emulator/cdn/cdnPullZone
 * The storage zone's pull zone: `GET /cdn/{zone}/{path}` serves stored files (Range, ETag,
 * Content-Type by extension). With `pullZone.tokenAuthKey` set, every request needs a valid HS256
 * `token` + `expires`. The signed path may be the URL's full path (`/cdn/{zone}/{path}`, what a signer
 * of the whole URL computes) or the path as a real pull zone sees it (`/{path}`): on the real host,
 * where the pull zone's origin is the zone root, the two are the same thing. The token may also be
 * embedded as a path segment (`bcdn_token=...`), right after the host or right after `/cdn/{zone}`.
 */
import { stat } from 'node:fs/promises'
import { resolveInside } from '../auth/resolveInside.js'
import type { UpstreamHandler } from '../context.js'
import { safeDecode } from '../http/safeDecode.js'
import { answerPreflight, corsHeaders } from '../http/cors.js'
import { sendText } from '../http/sendJson.js'
import { serveFile } from '../http/serveFile.js'
import { zoneFileType } from '../http/zoneFileType.js'
import { extractPathToken } from './pathToken.js'
import { verifyCdnToken } from './verifyCdnToken.js'

const PREFIX = '/cdn/'

export const cdnPullZone: UpstreamHandler = async (req, res, { rawPath, query }, ctx) => {
  if (!rawPath.startsWith(PREFIX)) return false
  if (req.method === 'OPTIONS') {
    answerPreflight(req, res, ['GET', 'HEAD'])
    return true
  }
  const cors = corsHeaders(req, ['Content-Length', 'Content-Range', 'ETag'])
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    sendText(res, 405, 'Method Not Allowed', undefined, cors)
    return true
  }
  const rest = rawPath.slice(PREFIX.length)
  const slash = rest.indexOf('/')
  const zone = safeDecode(slash === -1 ? rest : rest.slice(0, slash))
  let objectPath = slash === -1 ? '' : rest.slice(slash + 1)
  // A directory token embedded after the zone (`/cdn/{zone}/bcdn_token=.../path`) counts as query.
  const embedded = extractPathToken(`/${objectPath}`)
  if (embedded) {
    objectPath = embedded.path.slice(1)
    for (const [name, value] of embedded.query) query.set(name, value)
  }
  if (zone !== ctx.options.zoneName) {
    sendText(res, 404, 'Not Found', undefined, cors)
    return true
  }
  const target = resolveInside(ctx.dirs.zone, objectPath)
  if (!target) {
    sendText(res, 400, 'Bad Request', undefined, cors)
    return true
  }
  // Blocked folders (an Edge Rule on the real host): refused whatever the token, before any lookup.
  if (ctx.options.blockedPaths.some((blocked) => `${target.relative}/`.startsWith(blocked))) {
    ctx.log(`cdn refused /${target.relative}: blocked path`)
    sendText(res, 403, '403 Forbidden', undefined, cors)
    return true
  }
  if (ctx.options.tokenAuthKey) {
    const check = (path: string) => verifyCdnToken({ key: ctx.options.tokenAuthKey ?? '', path, query, clientIp: req.socket.remoteAddress })
    const reason = check(`/cdn/${zone}/${target.relative}`)
    if (reason && check(`/${target.relative}`)) {
      ctx.log(`cdn refused /${target.relative}: ${reason}`)
      sendText(res, 403, '403 Forbidden', undefined, cors)
      return true
    }
  }
  if (target.relative === '' || !(await stat(target.absolute).catch(() => undefined))?.isFile()) {
    sendText(res, 404, 'Not Found', undefined, cors)
    return true
  }
  const type = zoneFileType(target.relative, ctx.options.inlineActiveContent)
  await serveFile({
    req,
    res,
    filePath: target.absolute,
    contentType: type.contentType,
    headers: { ...cors, ...type.headers, 'Cache-Control': 'public, max-age=31536000' },
  })
  return true
}
