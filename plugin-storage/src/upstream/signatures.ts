/**
 * @module upstream/signatures
 * The host's signatures: TUS upload authorisation and token-authenticated CDN URLs.
 */
import { createHash, createHmac } from 'node:crypto'

/** `hex(sha256(libraryId + apiKey + expire + videoId))`, the TUS `AuthorizationSignature`. */
export function tusSignature(libraryId: number, apiKey: string, expire: number, videoId: string): string {
  return createHash('sha256').update(`${libraryId}${apiKey}${expire}${videoId}`).digest('hex')
}

/**
 * Signs a pull-zone URL with the current token authentication scheme:
 * `token = "HS256-" + base64url(HMAC-SHA256(key, path + expires))`, sent as `?token=...&expires=...`.
 * (No IP lock, no extra signed parameters.)
 */
export function signCdnUrl(url: string, key: string, expiresIn: number, now = Date.now()): string {
  const parsed = new URL(url)
  const expires = Math.floor(now / 1000) + expiresIn
  const path = decodeURIComponent(parsed.pathname)
  const token = `HS256-${createHmac('sha256', key).update(`${path}${expires}`).digest('base64url')}`
  parsed.searchParams.set('token', token)
  parsed.searchParams.set('expires', String(expires))
  return parsed.toString()
}
