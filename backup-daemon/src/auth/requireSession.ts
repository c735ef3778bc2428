/**
 * @module auth/requireSession
 * Route middleware for every endpoint that needs a session when auth is on: a missing, forged, expired
 * or logged-out cookie is a 401 Problem; a valid one with under five minutes left gets a fresh cookie in
 * the response (spec Authentication §3), within the session's lifetime cap (`maxSessionSeconds`). With
 * auth off it lets everything through.
 */
import type { MiddlewareHandler } from 'hono'
import type { AuthConfig } from '../config/types.js'
import { HttpError } from '../http/HttpError.js'
import type { RevokedSessions } from './revokedSessions.js'
import type { SessionEnds } from './sessionEnds.js'
import { readSessionCookie, setSessionCookie } from './sessionCookie.js'
import { sessionExpiry, signSession, verifySession, type SessionClaims } from './sessionToken.js'
import { verifiedTokens } from './verifiedTokens.js'

export interface RequireSessionOptions {
  auth: AuthConfig
  key: Uint8Array
  /** Sessions ended by a logout. */
  revoked: RevokedSessions
  /** Refresh the cookie when fewer than this many milliseconds remain. @default 300000 (5 minutes) */
  refreshWindowMs?: number
  /** Milliseconds since the epoch (tests move it). @default Date.now */
  clock?: () => number
  /** Told the expiry of every session token verified or issued (streams end with their session). */
  ends?: SessionEnds
}

/** The middleware, plus the session each request passed it with. */
export interface SessionMiddleware extends MiddlewareHandler {
  /** The session a request passed the middleware with (undefined with auth off). */
  claimsOf(request: Request): SessionClaims | undefined
}

export const requireSession = ({ auth, key, revoked, refreshWindowMs = 5 * 60_000, clock = Date.now, ends }: RequireSessionOptions): SessionMiddleware => {
  const verified = verifiedTokens()
  const sessions = new WeakMap<Request, SessionClaims>()
  const refreshDue = (claims: SessionClaims, now: number) =>
    claims.exp * 1000 - now < refreshWindowMs && sessionExpiry(auth.tokenExpiration, now, claims.authTime) > claims.exp
  const middleware: MiddlewareHandler = async function requireSession(c, next) {
    if (!auth.enabled) return next()
    const token = readSessionCookie(c)
    if (!token) throw new HttpError(401, { message: 'authentication required: log in at POST /api/v1/auth/login' })
    const now = clock()
    let claims = verified.get(token, now / 1000)
    if (!claims) {
      claims = await verifySession(token, key, auth.username, now)
      if (!claims) throw new HttpError(401, { message: 'session invalid or expired: log in again' })
      verified.remember(token, claims)
    }
    // After the memo: a logged-out token must not live on in it.
    if (revoked.has(claims.sid, now / 1000)) throw new HttpError(401, { message: 'session ended by a logout: log in again' })
    // At the lifetime cap a new token would expire no later than this one: no refresh, log in again.
    ends?.seen(claims.sid, claims.exp)
    if (refreshDue(claims, now)) {
      setSessionCookie(c, await signSession({ key, username: auth.username, minutes: auth.tokenExpiration, now, session: claims }), auth)
      ends?.seen(claims.sid, sessionExpiry(auth.tokenExpiration, now, claims.authTime))
    }
    sessions.set(c.req.raw, claims)
    await next()
  }
  return Object.assign(middleware, { claimsOf: (request: Request) => sessions.get(request) })
}
