/**
 * @module auth/videoToken
 * The `videoToken` of tus-auth: an HS256 JWT signed with the CMS secret, bound to one video and one
 * user, valid 24 h (DESIGN.md). Proves on save and on resume that this user created this video.
 */
import { jwtVerify, SignJWT } from 'jose'
import type { PayloadRequest } from 'payload'

import { VIDEO_TOKEN_TTL_SECONDS } from '../constants.js'

const AUDIENCE = 'storage-host:video'

export interface VideoTokenClaims {
  videoId: string
  libraryId: number
  /** `{userCollection}:{userId}` */
  user: string
}

/** The token is keyed by a value derived from the CMS secret, so it can never be confused with a session JWT. */
function keyFor(secret: string): Uint8Array {
  return new TextEncoder().encode(`storage-host-video-token-v1:${secret}`)
}

/** Identifies the signed-in user of a request, or undefined. */
export function userKey(req: PayloadRequest): string | undefined {
  return req.user ? `${req.user.collection}:${String(req.user.id)}` : undefined
}

/** Signs a token for a video and the request's user. */
export async function signVideoToken(secret: string, claims: VideoTokenClaims): Promise<string> {
  return new SignJWT({ lib: claims.libraryId, vid: claims.videoId })
    .setProtectedHeader({ alg: 'HS256' })
    .setAudience(AUDIENCE)
    .setSubject(claims.user)
    .setIssuedAt()
    .setExpirationTime(`${VIDEO_TOKEN_TTL_SECONDS}s`)
    .sign(keyFor(secret))
}

/** Verifies a token; answers its claims or undefined when forged, expired or malformed. */
export async function verifyVideoToken(secret: string, token: string): Promise<VideoTokenClaims | undefined> {
  try {
    const { payload } = await jwtVerify(token, keyFor(secret), { algorithms: ['HS256'], audience: AUDIENCE })
    if (typeof payload.vid !== 'string' || typeof payload.lib !== 'number' || typeof payload.sub !== 'string') return undefined
    return { libraryId: payload.lib, user: payload.sub, videoId: payload.vid }
  } catch {
    return undefined
  }
}
