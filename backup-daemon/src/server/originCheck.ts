/**
 * @module server/originCheck
 * Cross-site request refusal (CSRF) for the API: a state-changing request (any method but GET, HEAD and
 * OPTIONS) made by a browser must come from the daemon's own origin or one of
 * `server.auth.allowedOrigins`, else it is a 403 Problem before any handler (or the session check) runs.
 *
 * Why not just SameSite=Lax: "site" ignores the port and the subdomain, so a page on another port of
 * the same host, or on a sibling subdomain, is same-site and its form POSTs carry the session cookie.
 *
 * Which header decides, in order:
 * - `Origin` (every browser sends it on non-GET requests): must equal the own origin or an allowed one;
 *   `null` (sandboxed frames, `file:` pages, cross-origin redirects) is refused.
 * - without it, `Sec-Fetch-Site`: `same-origin` and `none` (typed by the user) pass, `same-site` and
 *   `cross-site` are refused.
 * - without both, `Referer`: its origin must pass like `Origin`.
 * - none of the three: not a browser (curl, scripts, the CLI), which carries no ambient cookie, so it
 *   passes.
 *
 * The own origin is the `Host` header the request came with, under either scheme (a reverse proxy that
 * keeps `Host` but terminates TLS changes the scheme the daemon sees, not the host), but only when that
 * host is one of the listening address's own names: `localhost` or an IP literal. Any other name counts
 * only when it is in `allowedOrigins`: under DNS rebinding a page of `http://rebind.test:8080` is "same
 * origin" with a daemon that `rebind.test` now resolves to, and its `Host` says `rebind.test:8080`.
 * For the same reason a browser's GET (one sending `Origin` or `Sec-Fetch-Site`) whose `Host` is a
 * foreign name is refused too: a rebound page could otherwise read an API with auth off (and `/metrics`,
 * which `createApp` puts under this check as well). Clients that are no browser (curl, scripts) may use any name.
 */
import type { MiddlewareHandler } from 'hono'
import { isIP } from 'node:net'
import { HttpError } from '../http/HttpError.js'

export interface OriginCheckOptions {
  /** Origins besides the daemon's own that may send state-changing requests (`scheme://host[:port]`). */
  allowedOrigins: readonly string[]
}

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS'])

/** `scheme://host[:port]` with the default port dropped and the host lower-cased, or undefined when `value` is no http(s) URL. */
function normalOrigin(value: string): string | undefined {
  try {
    const url = new URL(value)
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined
  } catch {
    return undefined
  }
}

function refuse(why: string): never {
  throw new HttpError(403, { message: `cross-site request refused: ${why}; allowed are the daemon's own origin and server.auth.allowedOrigins` })
}

/** `localhost` and IP literals cannot be rebound to another address by DNS; `hostname` as `URL` gives it (IPv6 in brackets). */
export function isOwnHostName(hostname: string): boolean {
  return hostname === 'localhost' || isIP(hostname) !== 0 || (hostname.startsWith('[') && isIP(hostname.slice(1, -1)) === 6)
}

/** The host name of a `Host` header value (`[::1]:8080` gives `[::1]`), lower-cased; '' when unparsable. */
export function hostNameOf(host: string): string {
  try {
    return new URL(`http://${host}`).hostname
  } catch {
    return ''
  }
}

export const originCheck = ({ allowedOrigins }: OriginCheckOptions): MiddlewareHandler => {
  const allowed = new Set(allowedOrigins.flatMap((o) => normalOrigin(o) ?? []))
  return async function originCheck(c, next) {
    const host = c.req.header('host') ?? new URL(c.req.url).host
    const own = new Set([`http://${host}`, `https://${host}`].flatMap((o) => normalOrigin(o) ?? []).filter((o) => isOwnHostName(new URL(o).hostname)))
    if (safeMethods.has(c.req.method)) {
      const browser = c.req.header('origin') !== undefined || c.req.header('sec-fetch-site') !== undefined
      const known = own.size > 0 || [`http://${host}`, `https://${host}`].some((o) => allowed.has(normalOrigin(o) ?? ''))
      if (browser && !known) refuse(`the Host ${JSON.stringify(host.slice(0, 200))} is no name of this daemon (DNS rebinding?)`)
      return next()
    }
    const passes = (origin: string | undefined) => origin !== undefined && (own.has(origin) || allowed.has(origin))

    const origin = c.req.header('origin')
    if (origin !== undefined) {
      if (!passes(normalOrigin(origin))) refuse(`origin ${JSON.stringify(origin.slice(0, 200))} is not allowed`)
      return next()
    }
    const fetchSite = c.req.header('sec-fetch-site')
    if (fetchSite !== undefined) {
      if (fetchSite !== 'same-origin' && fetchSite !== 'none') refuse(`Sec-Fetch-Site is ${JSON.stringify(fetchSite.slice(0, 40))}`)
      return next()
    }
    const referer = c.req.header('referer')
    if (referer !== undefined && !passes(normalOrigin(referer))) refuse('the Referer is not from an allowed origin')
    return next()
  }
}
