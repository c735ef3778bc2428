/**
 * @module emulator/cdn/cdnTokenSignature
 * The pull zone's current token scheme (official TokenAuthentication library, "HS256"):
 * `"HS256-" + ("1-" when IP-locked) + base64url(HMAC-SHA256(key, signaturePath + expires + ipBytes + params))`
 * where `signaturePath` is `token_path` when present (directory tokens) or the URL path, `params` are
 * the other query parameters (not `token`/`expires`) sorted by name as `k=v&k=v` with raw values, and
 * `ipBytes` are the 4 bytes of an IPv4 address or the first 8 bytes of an IPv6 address (/64).
 */
import { createHmac } from 'node:crypto'
import { isIPv4, isIPv6 } from 'node:net'

export interface CdnTokenInput {
  key: string
  /** Decoded URL path, or the `token_path` prefix. */
  signaturePath: string
  expires: number
  /** Query parameters other than `token` and `expires` (including `token_path`). */
  params: Record<string, string>
  userIp?: string
}

/** Raw bytes of an IP as the scheme signs them. */
export function ipBytes(ip: string): Buffer {
  const plain = ip.startsWith('::ffff:') && isIPv4(ip.slice(7)) ? ip.slice(7) : ip
  if (isIPv4(plain)) return Buffer.from(plain.split('.').map(Number))
  if (!isIPv6(plain)) throw new Error('not an IP address')
  const [head = '', tail = ''] = plain.split('::')
  const headGroups = head ? head.split(':') : []
  const tailGroups = tail ? tail.split(':') : []
  const groups = plain.includes('::') ? [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups] : headGroups
  const bytes = Buffer.alloc(16)
  groups.slice(0, 4).forEach((group, i) => bytes.writeUInt16BE(parseInt(group || '0', 16), i * 2))
  return bytes
}

/** The token string for the given input. */
export function cdnTokenSignature({ key, signaturePath, expires, params, userIp }: CdnTokenInput): string {
  const signingData = Object.keys(params)
    .sort()
    .map((name) => `${name}=${params[name]}`)
    .join('&')
  const mac = createHmac('sha256', key)
  mac.update(signaturePath)
  mac.update(String(expires))
  if (userIp) mac.update(ipBytes(userIp))
  mac.update(signingData)
  return `HS256-${userIp ? '1-' : ''}${mac.digest('base64url')}`
}
