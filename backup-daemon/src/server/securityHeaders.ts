/**
 * @module server/securityHeaders
 * Headers on every response: no MIME sniffing, no framing (clickjacking), no referrer. API responses
 * also get `Content-Security-Policy: default-src 'none'` (JSON never needs to load anything) and
 * `Cache-Control: no-store` (they carry session-bound data). A response that set its own CSP (the docs
 * page, the UI) keeps it.
 */
import type { MiddlewareHandler } from 'hono'

export interface SecurityHeadersOptions {
  /** Paths under this prefix are API responses. @default "/api/" */
  apiPrefix?: string
}

export const securityHeaders = ({ apiPrefix = '/api/' }: SecurityHeadersOptions = {}): MiddlewareHandler =>
  async function securityHeaders(c, next) {
    await next()
    const isApi = c.req.path.startsWith(apiPrefix)
    const apply = (h: Headers) => {
      h.set('X-Content-Type-Options', 'nosniff')
      h.set('X-Frame-Options', 'DENY')
      h.set('Referrer-Policy', 'no-referrer')
      if (!h.has('Content-Security-Policy')) h.set('Content-Security-Policy', isApi ? "default-src 'none'; frame-ancestors 'none'" : "frame-ancestors 'none'")
      if (isApi && !h.has('Cache-Control')) h.set('Cache-Control', 'no-store')
    }
    try {
      apply(c.res.headers)
    } catch {
      // Some responses (e.g. from fetch) have immutable headers: copy the response, then set them.
      c.res = new Response(c.res.body, c.res)
      apply(c.res.headers)
    }
  }
