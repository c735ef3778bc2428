/**
 * @module emulator/cdn/verifyCdnToken
 * Checks `token` + `expires` on a pull-zone request the way the edge does.
 */
import { safeEqual } from '../auth/safeEqual.js'
import { cdnTokenSignature } from './cdnTokenSignature.js'

export interface VerifyCdnTokenArgs {
  key: string
  /** The path the client asked for, decoded, as seen on the pull zone (e.g. `/a/b.jpg`). */
  path: string
  query: URLSearchParams
  clientIp: string | undefined
  now?: number
}

/** `undefined` when allowed, else a short reason (never containing the key). */
export function verifyCdnToken({ key, path, query, clientIp, now = Date.now() }: VerifyCdnTokenArgs): string | undefined {
  const token = query.get('token')
  const expiresText = query.get('expires')
  if (!token || !expiresText) return 'missing token'
  if (!/^\d+$/.test(expiresText)) return 'bad expires'
  const expires = Number(expiresText)
  if (expires * 1000 < now) return 'expired'
  if (!token.startsWith('HS256-')) return 'unsupported token'
  const params: Record<string, string> = {}
  const ignoreParams = query.get('token_ignore_params') === 'true'
  for (const [name, value] of query) {
    if (name === 'token' || name === 'expires') continue
    if (ignoreParams && name !== 'token_ignore_params' && name !== 'token_path') continue
    params[name] = value
  }
  const tokenPath = params.token_path
  if (tokenPath !== undefined && !path.startsWith(tokenPath)) return 'path not allowed'
  // The "1-" marker is ambiguous on its own: a plain signature starts with "1-" once in 4096 tokens. Its
  // length is not: HMAC-SHA256 in base64url is always 43 characters, after "HS256-" or after "HS256-1-".
  const ipLocked = token.startsWith('HS256-1-') && token.length === 'HS256-1-'.length + 43
  if (ipLocked && !clientIp) return 'no client ip'
  const expected = cdnTokenSignature({ key, signaturePath: tokenPath ?? path, expires, params, userIp: ipLocked ? clientIp : undefined })
  return safeEqual(token, expected) ? undefined : 'bad token'
}
