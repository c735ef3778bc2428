/**
 * @module emulator/cdn/purgeApi
 * The account API's cache purge (bunny.net "Purge URL"): `POST /purge?url=<url>[&async=..][&exactPath=..]`
 * with `AccessKey: <account API key>` → 200 (empty). Wrong or missing key 401, missing or non-http(s)
 * `url` 400. The emulator's pull zones do not cache, so a purge only records the URL; the emulator-only
 * `GET /purge/log` answers `{purges: [{url, purgedAt}]}` (oldest first) for tests.
 */
import { safeEqual } from '../auth/safeEqual.js'
import type { UpstreamHandler } from '../context.js'
import { sendJson, sendText } from '../http/sendJson.js'

/** Oldest records are dropped past this many (a dev server may run for days). */
const LOG_LIMIT = 10_000

export const purgeApi: UpstreamHandler = async (req, res, { rawPath, query }, ctx) => {
  if (rawPath !== '/purge' && rawPath !== '/purge/log') return false
  req.resume()
  if (rawPath === '/purge/log') {
    if (req.method !== 'GET') sendText(res, 405, 'Method Not Allowed')
    else sendJson(res, 200, { purges: ctx.purges })
    return true
  }
  if (req.method !== 'POST') {
    sendText(res, 405, 'Method Not Allowed')
    return true
  }
  const key = req.headers.accesskey
  if (typeof key !== 'string' || !safeEqual(key, ctx.options.accountApiKey)) {
    sendJson(res, 401, { ErrorKey: 'unauthorized', Message: 'The request authorization failed.' })
    return true
  }
  const url = query.get('url') ?? ''
  if (!URL.canParse(url) || !['http:', 'https:'].includes(new URL(url).protocol)) {
    sendJson(res, 400, { ErrorKey: 'purge.url_invalid', Field: 'url', Message: 'The url must be an absolute http(s) URL.' })
    return true
  }
  ctx.purges.push({ purgedAt: new Date().toISOString(), url })
  if (ctx.purges.length > LOG_LIMIT) ctx.purges.splice(0, ctx.purges.length - LOG_LIMIT)
  ctx.log(`purged ${new URL(url).pathname}`)
  res.writeHead(200, { 'Content-Length': '0' })
  res.end()
  return true
}
