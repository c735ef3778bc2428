/**
 * @module auth/sessionToken
 * The session JWT (HS256, via `jose`): subject = the configured user name, `exp` = login time plus
 * `tokenExpiration` minutes. `jose` checks the signature in constant time and refuses other algorithms.
 */
import { SignJWT, jwtVerify } from 'jose'

export interface SessionClaims {
  /** The user name the session was issued to. */
  sub: string
  /** Expiry, seconds since the epoch. */
  exp: number
}

export interface SignSessionOptions {
  key: Uint8Array
  username: string
  /** Lifetime in minutes. */
  minutes: number
  /** @default Date.now() */
  now?: number
}

export async function signSession({ key, username, minutes, now = Date.now() }: SignSessionOptions): Promise<string> {
  const iat = Math.floor(now / 1000)
  return new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(username)
    .setIssuedAt(iat)
    .setExpirationTime(iat + Math.round(minutes * 60))
    .sign(key)
}

/** Returns the claims of a valid, unexpired token issued to `username`, otherwise `undefined`. */
export async function verifySession(token: string, key: Uint8Array, username: string): Promise<SessionClaims | undefined> {
  try {
    const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'], subject: username })
    if (typeof payload.sub !== 'string' || typeof payload.exp !== 'number') return undefined
    return { sub: payload.sub, exp: payload.exp }
  } catch {
    return undefined
  }
}
