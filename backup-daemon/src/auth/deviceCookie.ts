/**
 * @module auth/deviceCookie
 * The `backup_device` cookie: a browser that logged in with the right password gets it, and its later
 * logins are limited per device instead of per address (issue 39 #3). Every local user shares
 * `127.0.0.1` with the owner's browser, so a limit by address lets anyone who knows (or guesses) the
 * account's name spend the owner's budget; the cookie is what tells the owner's browser from them
 * (OWASP's "device cookies"). It is no session: it opens nothing, only keeps the owner's login budget
 * apart (and out of the per-account lock, as an address that logged in before is).
 *
 * Value `<id>.<mac>`: a random id and HMAC-SHA256 of it and the user name under the session key, with a
 * label of its own so that no session token can be made from it or taken for it; compared in constant
 * time. A new session key (an empty `server.secret` at each start, a changed secret) or another user
 * name make every device cookie void: such a browser is limited by its address again until it logs in.
 * HttpOnly, `Path=/`, 400 days (the browsers' cap), `Secure`/`SameSite`/`Domain` as the session cookie.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { Context } from 'hono'
import { setCookie } from 'hono/cookie'
import type { AuthConfig } from '../config/types.js'
import { cookieValue } from './sessionCookie.js'

export const deviceCookieName = 'backup_device'

const maxAge = 400 * 24 * 3600

const mac = (key: Uint8Array, username: string, id: string) => createHmac('sha256', key).update(`backup_device\n${username}\n${id}`).digest()

/** The device id of the request's valid `backup_device` cookie for `username`, else undefined. */
export function readDeviceCookie(c: Context, key: Uint8Array, username: string): string | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming
  const header = incoming ? incoming.headers.cookie : (c.req.raw.headers.get('cookie') ?? undefined)
  const value = header ? cookieValue(header, deviceCookieName) : undefined
  const [id, given, ...rest] = value?.split('.') ?? []
  if (!id || !given || rest.length || id.length > 64) return undefined
  const expected = mac(key, username, id)
  const actual = Buffer.from(given, 'base64url')
  return actual.length === expected.length && timingSafeEqual(actual, expected) ? id : undefined
}

/** Sets the cookie for device `id` (a new one when absent) of `username`. */
export function setDeviceCookie(c: Context, key: Uint8Array, auth: AuthConfig, id = randomBytes(16).toString('base64url')): void {
  const { secure, sameSite, domain } = auth.cookies
  const value = `${id}.${mac(key, auth.username, id).toString('base64url')}`
  setCookie(c, deviceCookieName, value, { path: '/', httpOnly: true, secure, sameSite, maxAge, ...(domain ? { domain } : {}) })
}
