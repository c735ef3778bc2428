/**
 * @module server/securityHeaders
 * Headers on every response: no MIME sniffing, no framing (clickjacking), no referrer. API responses
 * also get `Content-Security-Policy: default-src 'none'` (JSON never needs to load anything) and
 * `Cache-Control: no-store` (they carry session-bound data).
 *
 * They are set before the handler runs, as prepared headers of the context: every response made through
 * the context (`c.json`, `c.body`, streams, the error handler's `c.newResponse`) starts from them, and a
 * response that sets its own CSP or Cache-Control (the docs page, the UI, SSE) overrides them. Setting
 * them up front costs one `Headers` object per request instead of rebuilding the response afterwards.
 */
import type { MiddlewareHandler } from 'hono'

export interface SecurityHeadersOptions {
  /** Paths under this prefix are API responses. @default "/api/" */
  apiPrefix?: string
}

const common: [string, string][] = [
  ['X-Content-Type-Options', 'nosniff'],
  ['X-Frame-Options', 'DENY'],
  ['Referrer-Policy', 'no-referrer'],
]
const api: [string, string][] = [...common, ['Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'"], ['Cache-Control', 'no-store']]
const page: [string, string][] = [...common, ['Content-Security-Policy', "frame-ancestors 'none'"]]

export const securityHeaders = ({ apiPrefix = '/api/' }: SecurityHeadersOptions = {}): MiddlewareHandler =>
  async function securityHeaders(c, next) {
    for (const [name, value] of c.req.path.startsWith(apiPrefix) ? api : page) c.header(name, value)
    await next()
  }
