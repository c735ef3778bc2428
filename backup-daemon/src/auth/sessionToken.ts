/**
 * @module auth/sessionToken
 * The session JWT (HS256, via `jose`): subject = the configured user name, `exp` = issue time plus
 * `tokenExpiration` minutes, `sid` = the session's random ID and `auth_time` = when the password was
 * given. Both are carried unchanged through refreshes: `sid` lets a logout revoke every token of the
 * session, `auth_time` caps how long refreshes can keep it alive (`maxSessionSeconds`). `jose` checks the
 * signature in constant time and refuses other algorithms. `jose` is imported by the first token signed
 * or checked, so a daemon without login does not load it (~60 ms of `serve`'s start, README "Start-up time").
 */
import { createHash, randomBytes } from 'node:crypto'

export interface SessionClaims {
  /** The user name the session was issued to. */
  sub: string
  /** Expiry, seconds since the epoch. */
  exp: number
  /** The session's ID, the same for every token refreshed from one login. */
  sid: string
  /** Login time (seconds since the epoch), the same for every token of the session. */
  authTime: number
}

/**
 * The longest a session lives from its login, refreshes included: 12 token lifetimes (6 hours with the
 * default 30 minutes), at most 24 hours, and never less than one token lifetime.
 */
export function maxSessionSeconds(tokenMinutes: number): number {
  const token = Math.round(tokenMinutes * 60)
  return Math.max(token, Math.min(12 * token, 24 * 3600))
}

export interface SignSessionOptions {
  key: Uint8Array
  username: string
  /** Lifetime in minutes. */
  minutes: number
  /** @default Date.now() */
  now?: number
  /** The session a refreshed token continues; absent for a login (a new `sid`, `auth_time` = now). */
  session?: Pick<SessionClaims, 'sid' | 'authTime'>
}

/** The `exp` of a token signed at `now` (ms) for a session that began at `authTime` (s): capped by `maxSessionSeconds`. */
export function sessionExpiry(minutes: number, now: number, authTime: number): number {
  return Math.min(Math.floor(now / 1000) + Math.round(minutes * 60), authTime + maxSessionSeconds(minutes))
}

/** Signs a token; its `exp` never passes `auth_time + maxSessionSeconds(minutes)`. */
export async function signSession({ key, username, minutes, now = Date.now(), session }: SignSessionOptions): Promise<string> {
  const iat = Math.floor(now / 1000)
  const sid = session?.sid ?? randomBytes(16).toString('base64url')
  const authTime = session?.authTime ?? iat
  const exp = sessionExpiry(minutes, now, authTime)
  const { SignJWT } = await import('jose')
  return new SignJWT({ sid, auth_time: authTime })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(username)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(key)
}

/**
 * Returns the claims of a valid, unexpired token issued to `username`, otherwise `undefined`. A token
 * from before `sid` existed gets the hash of itself as `sid` and its `iat` as `auth_time`.
 */
export async function verifySession(token: string, key: Uint8Array, username: string, now = Date.now()): Promise<SessionClaims | undefined> {
  const { jwtVerify } = await import('jose')
  try {
    const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'], subject: username, currentDate: new Date(now) })
    if (typeof payload.sub !== 'string' || typeof payload.exp !== 'number') return undefined
    const sid = typeof payload.sid === 'string' ? payload.sid : createHash('sha256').update(token).digest('base64url')
    const authTime = typeof payload.auth_time === 'number' ? payload.auth_time : (payload.iat ?? 0)
    return { sub: payload.sub, exp: payload.exp, sid, authTime }
  } catch {
    return undefined
  }
}
