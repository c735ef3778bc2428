/**
 * @module auth/sessionKey
 * The HS256 key sessions are signed with: the configured `server.secret`, or, when it is empty, 32 random
 * bytes that live as long as the process (a restart logs everybody out, spec Authentication §7).
 */
import { randomBytes } from 'node:crypto'

/** Returns the signing key for `secret` (UTF-8 bytes), or a fresh random key when `secret` is empty. */
export function sessionKey(secret: string): Uint8Array {
  return secret ? new TextEncoder().encode(secret) : new Uint8Array(randomBytes(32))
}
