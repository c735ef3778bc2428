/**
 * @module upstream/signatures
 * The host's signatures: TUS upload authorisation and token-authenticated pull-zone URLs.
 */
import { createHash, createHmac } from 'node:crypto'
import { isIPv4, isIPv6 } from 'node:net'

/** `hex(sha256(libraryId + apiKey + expire + videoId))`, the TUS `AuthorizationSignature`. */
export function tusSignature(libraryId: number, apiKey: string, expire: number, videoId: string): string {
  return createHash('sha256').update(`${libraryId}${apiKey}${expire}${videoId}`).digest('hex')
}

/** What a signed pull-zone URL is bound to. */
export interface UrlBinding {
  /** The pull zone's token authentication key. */
  key: string
  /** Absolute expiry, UNIX seconds. */
  expires: number
  /** The viewer's address: the token is then `HS256-1-...`, refused from any other address. */
  address?: string
  /** A path prefix the token opens (`token_path`) instead of the URL's own path. */
  tokenPath?: string
}

/**
 * The bytes of an address as the host signs them: an IPv4 address's 4 bytes, an IPv6 address's /64
 * (its first 8 bytes, then 8 zero bytes: a viewer keeps its network prefix when its interface id rotates).
 * An IPv4-mapped IPv6 address (`::ffff:1.2.3.4`) is its IPv4 address.
 */
export function addressBytes(address: string): Buffer {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1]
  const plain = mapped ?? address
  if (isIPv4(plain)) return Buffer.from(plain.split('.').map(Number))
  if (!isIPv6(plain)) throw new Error(`not an IP address: ${address}`)
  const [head = '', tail] = plain.split('::')
  const groups = (text: string) => (text ? text.split(':') : [])
  const all = tail === undefined ? groups(head) : [...groups(head), ...Array<string>(8 - groups(head).length - groups(tail).length).fill('0'), ...groups(tail)]
  const bytes = Buffer.alloc(16)
  all.slice(0, 4).forEach((group, i) => bytes.writeUInt16BE(parseInt(group, 16), i * 2))
  return bytes
}

/**
 * Signs a pull-zone URL with the host's current token scheme (its official TokenAuthentication library):
 * `token = "HS256-" + ("1-" when bound to an address) + base64url(HMAC-SHA256(key, signaturePath + expires
 * + addressBytes + sortedParams))`, where `signaturePath` is `token_path` when set, else the URL's decoded
 * path, and `sortedParams` the URL's query parameters (with `token_path`) as `k=v&k=v` by name. Sent as
 * `?token=...&...&expires=...`, or with `inPath` as a directory token at the start of the path
 * (`/bcdn_token=...&expires=.../path`), which the relative URLs inside an HLS playlist inherit.
 */
export function signCdnUrl(url: string, binding: UrlBinding, inPath = false): string {
  const parsed = new URL(url)
  const params: Record<string, string> = Object.fromEntries(parsed.searchParams)
  if (binding.tokenPath) params.token_path = binding.tokenPath
  const names = Object.keys(params).sort()
  const mac = createHmac('sha256', binding.key)
  mac.update(binding.tokenPath ?? decodeURIComponent(parsed.pathname))
  mac.update(String(binding.expires))
  if (binding.address) mac.update(addressBytes(binding.address))
  mac.update(names.map((name) => `${name}=${params[name]}`).join('&'))
  const token = `HS256-${binding.address ? '1-' : ''}${mac.digest('base64url')}`
  const query = names.map((name) => `&${name}=${encodeURIComponent(params[name]!)}`).join('')
  if (inPath) return `${parsed.origin}/bcdn_token=${token}${query}&expires=${binding.expires}${parsed.pathname}`
  return `${parsed.origin}${parsed.pathname}?token=${token}${query}&expires=${binding.expires}`
}
