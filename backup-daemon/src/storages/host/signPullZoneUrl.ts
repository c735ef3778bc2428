/**
 * @module storages/host/signPullZoneUrl
 * Pull-zone URL token authentication, current scheme (the host's official TokenAuthentication
 * library): `token = "HS256-" + base64url(HMAC-SHA256(key, path + expires))`, sent as
 * `?token=...&expires=<unix seconds>`. No IP lock and no extra parameters: the daemon does not know
 * the downloading client's address behind proxies, and the URL carries nothing else to sign.
 */
import { createHmac } from 'node:crypto'

/**
 * Returns `url` with a token valid for `ttlSeconds`.
 * @example
 * signPullZoneUrl('https://backups.b-cdn.net/job/a.tar.gz', 'key', 3600)
 */
export function signPullZoneUrl(url: string, key: string, ttlSeconds: number, now = Date.now()): string {
  const parsed = new URL(url)
  const expires = Math.floor(now / 1000) + ttlSeconds
  const signaturePath = decodeURIComponent(parsed.pathname)
  const token = `HS256-${createHmac('sha256', key).update(signaturePath).update(String(expires)).digest('base64url')}`
  return `${parsed.origin}${parsed.pathname}?token=${token}&expires=${expires}`
}
