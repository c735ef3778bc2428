/**
 * @module auth/sessionCookie
 * The `backup_session` cookie: HttpOnly, Path=/, Max-Age = the session lifetime, and `Secure`,
 * `SameSite`, `Domain` from `server.auth.cookies`. Clearing sends the same attributes with Max-Age=0 so
 * the browser drops the very cookie it holds.
 */
import type { IncomingMessage } from 'node:http'
import type { Context } from 'hono'
import { deleteCookie, setCookie } from 'hono/cookie'
import { parse } from 'hono/utils/cookie'
import type { AuthConfig } from '../config/types.js'

export const sessionCookieName = 'backup_session'

function attributes(auth: AuthConfig) {
  const { secure, sameSite, domain } = auth.cookies
  return { path: '/', httpOnly: true, secure, sameSite, ...(domain ? { domain } : {}) }
}

/** Browsers cap cookie lifetimes at 400 days (RFC 6265bis) and Hono refuses more. */
const maxCookieAge = 400 * 24 * 3600

export function setSessionCookie(c: Context, token: string, auth: AuthConfig): void {
  setCookie(c, sessionCookieName, token, { ...attributes(auth), maxAge: Math.min(Math.round(auth.tokenExpiration * 60), maxCookieAge) })
}

export function clearSessionCookie(c: Context, auth: AuthConfig): void {
  deleteCookie(c, sessionCookieName, attributes(auth))
}

export function readSessionCookie(c: Context): string | undefined {
  return sessionTokenOf(c.req.raw, (c.env as { incoming?: IncomingMessage } | undefined)?.incoming)
}

/** The session token a request carries. */
function sessionTokenOf(request: Request, incoming?: IncomingMessage): string | undefined {
  // Under @hono/node-server, read Node's already parsed header: `request.headers` would build a whole
  // `Headers` object for this request just to look up one value.
  if (!incoming) {
    const header = request.headers.get('cookie')
    return header ? parse(header, sessionCookieName)[sessionCookieName] : undefined
  }
  const header = incoming.headers.cookie
  return header ? cookieValue(header, sessionCookieName) : undefined
}

/**
 * One cookie's value from a `Cookie` header. Hand-written because Hono's `parse` validates every pair
 * with regular expressions (~6 µs per request on the hot `GET /jobs` path); a session JWT is plain
 * base64url, so only quotes and percent-escapes need undoing.
 */
export function cookieValue(header: string, name: string): string | undefined {
  let start = 0
  while (start < header.length) {
    const semicolon = header.indexOf(';', start)
    const stop = semicolon === -1 ? header.length : semicolon
    const equals = header.indexOf('=', start)
    if (equals !== -1 && equals < stop && header.slice(start, equals).trim() === name) {
      let value = header.slice(equals + 1, stop).trim()
      if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1)
      if (!value.includes('%')) return value
      try {
        return decodeURIComponent(value)
      } catch {
        return value
      }
    }
    start = stop + 1
  }
  return undefined
}
