/**
 * @module auth/urlBinding
 * What one reader's signed pull-zone URL is bound to: its absolute expiry, the folder its token opens
 * (`pathPrefix`) and, with `bindToAddress`, the viewer's address, read from the header the CMS's proxy
 * sets. The CMS never sees a browser's socket (Next.js and Payload hand it a `Request`), so a header is
 * the only source: one the proxy controls, never one a client could choose alone.
 */
import { isIP } from 'node:net'

import { HttpError } from '../errors.js'
import type { ResolvedTokenAuth } from '../options/resolveOptions.js'
import type { UrlBinding } from '../upstream/signatures.js'

/**
 * The viewer's address in `header`: the last entry of a list (what the nearest proxy appended; earlier
 * entries come from the client), without a port or brackets; undefined unless it is an IP address.
 */
export function viewerAddress(headers: Pick<Headers, 'get'> | undefined, header: string): string | undefined {
  const last = headers
    ?.get(header)
    ?.split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .at(-1)
  const bare = last?.replace(/^\[([^\]]+)\](?::\d+)?$/, '$1').replace(/^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/, '$1')
  return bare && isIP(bare) ? bare : undefined
}

/** The folder a token opens for `url`: `pathPrefix` under the pull zone's own path, when `url` is inside it. */
function tokenPathFor(auth: ResolvedTokenAuth, cdnUrl: string, url: string): string | undefined {
  if (auth.pathPrefix === undefined) return undefined
  const base = decodeURIComponent(new URL(cdnUrl).pathname).replace(/\/+$/, '')
  const folder = auth.pathPrefix ? `${base}/${auth.pathPrefix}/` : `${base}/`
  return decodeURIComponent(new URL(url).pathname).startsWith(folder) ? folder : undefined
}

/**
 * The binding of `url` (on the pull zone at `cdnUrl`) for the reader whose request headers are given.
 * Throws a 403 `HttpError` when the URL must carry the viewer's address and the request has none: a URL
 * without it would either fail at the pull zone or, worse, work from anywhere.
 */
export function urlBinding(auth: ResolvedTokenAuth, cdnUrl: string, url: string, headers: Pick<Headers, 'get'> | undefined, now = Date.now()): UrlBinding {
  const binding: UrlBinding = { expires: Math.floor(now / 1000) + auth.expiresIn, key: auth.key, tokenPath: tokenPathFor(auth, cdnUrl, url) }
  if (!auth.bindToAddress) return binding
  const address = viewerAddress(headers, auth.addressHeader)
  if (!address) {
    throw new HttpError(
      403,
      `Signed URLs are bound to the viewer's address, and this request names none in "${auth.addressHeader}": run the CMS behind a proxy that sets it, or set tokenAuth.addressHeader.`,
    )
  }
  return { ...binding, address }
}
