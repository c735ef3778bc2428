/**
 * @module emulator/cdn/signCdnUrl
 * Signs a pull-zone URL with the current HS256 token scheme (see `cdnTokenSignature`).
 */
import { cdnTokenSignature } from './cdnTokenSignature.js'

export interface SignCdnUrlOptions {
  /** The pull zone's URL token authentication key. */
  key: string
  /** Seconds from now. @default 3600 */
  expiresIn?: number
  /** Absolute expiry in UNIX seconds; wins over `expiresIn`. */
  expiresAt?: number
  /** Locks the token to one client IP (IPv6: its /64). */
  userIp?: string
  /** Directory token: any path under this prefix is allowed (sent as `token_path`). */
  pathAllowed?: string
  /** Put the token in the path (`/bcdn_token=...&expires=n/path`) instead of the query. @default false */
  inPath?: boolean
}

/**
 * Returns `url` with `token` and `expires` (and `token_path`) in its query, like the official library.
 * @example
 * signCdnUrl('http://127.0.0.1:3100/cdn/dev-zone/a.jpg', { key: 'k', expiresIn: 60 })
 */
export function signCdnUrl(url: string, { key, expiresIn = 3600, expiresAt, userIp, pathAllowed, inPath = false }: SignCdnUrlOptions): string {
  const parsed = new URL(url)
  const expires = expiresAt ?? Math.floor(Date.now() / 1000) + expiresIn
  const params: Record<string, string> = {}
  for (const [name, value] of parsed.searchParams) params[name] = value
  if (pathAllowed) params.token_path = pathAllowed
  const token = cdnTokenSignature({ key, signaturePath: pathAllowed ?? decodeURIComponent(parsed.pathname), expires, params, userIp })
  const query = Object.keys(params)
    .sort()
    .map((name) => `&${name}=${encodeURIComponent(params[name] ?? '')}`)
    .join('')
  if (inPath) return `${parsed.origin}/bcdn_token=${token}${query}&expires=${expires}${parsed.pathname}`
  return `${parsed.origin}${parsed.pathname}?token=${token}${query}&expires=${expires}`
}
