/**
 * @module auth/verifiedTokens
 * A bounded memo of session tokens whose signature has already been checked. Verifying an HS256 JWT
 * with `jose` costs ~150 µs (WebCrypto key import and HMAC on every call), more than the rest of a
 * `GET /jobs`; the UI polls, so the same token comes back again and again. A hit still checks the
 * expiry, and only exact token strings that passed verification are remembered.
 */
import type { SessionClaims } from './sessionToken.js'

export interface VerifiedTokens {
  get(token: string, nowSeconds: number): SessionClaims | undefined
  remember(token: string, claims: SessionClaims): void
}

/** @param max tokens remembered at once; the oldest is forgotten first. */
export function verifiedTokens(max = 1000): VerifiedTokens {
  const tokens = new Map<string, SessionClaims>()
  return {
    get(token, nowSeconds) {
      const claims = tokens.get(token)
      if (claims && claims.exp <= nowSeconds) {
        tokens.delete(token)
        return undefined
      }
      return claims
    },
    remember(token, claims) {
      if (tokens.size >= max) tokens.delete(tokens.keys().next().value as string)
      tokens.set(token, claims)
    },
  }
}
