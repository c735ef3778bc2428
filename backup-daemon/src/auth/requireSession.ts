/**
 * @module auth/requireSession
 * Route middleware for every endpoint that needs a session when auth is on: a missing, forged or expired
 * cookie is a 401 Problem; a valid one with under five minutes left gets a fresh cookie in the response
 * (spec Authentication §3). With auth off it lets everything through.
 */
import type { MiddlewareHandler } from 'hono'
import type { AuthConfig } from '../config/types.js'
import { HttpError } from '../server/HttpError.js'
import { readSessionCookie, setSessionCookie } from './sessionCookie.js'
import { signSession, verifySession } from './sessionToken.js'
import { verifiedTokens } from './verifiedTokens.js'

export interface RequireSessionOptions {
  auth: AuthConfig
  key: Uint8Array
  /** Refresh the cookie when fewer than this many milliseconds remain. @default 300000 (5 minutes) */
  refreshWindowMs?: number
}

export const requireSession = ({ auth, key, refreshWindowMs = 5 * 60_000 }: RequireSessionOptions): MiddlewareHandler => {
  const verified = verifiedTokens()
  return async function requireSession(c, next) {
    if (!auth.enabled) return next()
    const token = readSessionCookie(c)
    if (!token) throw new HttpError(401, { message: 'authentication required: log in at POST /api/v1/auth/login' })
    const now = Date.now()
    let claims = verified.get(token, now / 1000)
    if (!claims) {
      claims = await verifySession(token, key, auth.username)
      if (!claims) throw new HttpError(401, { message: 'session invalid or expired: log in again' })
      verified.remember(token, claims)
    }
    if (claims.exp * 1000 - now < refreshWindowMs) {
      setSessionCookie(c, await signSession({ key, username: auth.username, minutes: auth.tokenExpiration, now }), auth)
    }
    await next()
  }
}
