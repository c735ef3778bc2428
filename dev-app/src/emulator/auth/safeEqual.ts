/**
 * @module emulator/auth/safeEqual
 * Constant-time comparison of two secrets or signatures.
 */
import { createHash, timingSafeEqual } from 'node:crypto'

/**
 * True when `a` and `b` are the same string. Both sides are hashed first so that neither the content
 * nor the length of the expected value leaks through timing.
 */
export function safeEqual(a: string | undefined | null, b: string): boolean {
  if (typeof a !== 'string') return false
  const left = createHash('sha256').update(a, 'utf8').digest()
  const right = createHash('sha256').update(b, 'utf8').digest()
  return timingSafeEqual(left, right)
}
