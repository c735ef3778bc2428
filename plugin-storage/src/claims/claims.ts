/**
 * @module claims/claims
 * Take, keep and give back a named claim in the database (claims/claimsCollection.ts). `take` inserts the
 * key; the unique index refuses a second insert, from this process or another instance, so of two
 * requests with one receipt exactly one gets it. An expired claim of the same key is removed first.
 *
 * Inside a request the claim is written in the request's transaction (`req`): it becomes visible with the
 * document, it disappears when the save is rolled back, and a second instance inserting the same key
 * waits for the first to commit or roll back (PostgreSQL's unique index; SQLite's single writer) and
 * then gets the right answer. Outside transactions (a database without them) `release` gives it back.
 */
import { type Payload, type PayloadRequest, ValidationError, type Where } from 'payload'

import { CLAIMS_SLUG } from './claimsCollection.js'

/** What the adapters throw for a duplicate unique value (each maps its database's own error to it). */
const isDuplicate = (err: unknown): boolean =>
  err instanceof ValidationError && ((err.data as { errors?: { path?: string }[] } | undefined)?.errors ?? []).some((error) => error.path === 'key')

const expiredOf = (key: string, now: Date): Where => ({ and: [{ key: { equals: key } }, { expiresAt: { less_than_equal: now.toISOString() } }] })

/** Takes `key` for `ttlMs`; false when a live claim holds it. In `req`'s transaction when one is given. */
export async function takeClaim(payload: Payload, key: string, ttlMs: number, req?: PayloadRequest): Promise<boolean> {
  const now = new Date()
  await payload.db.deleteMany({ collection: CLAIMS_SLUG, req, where: expiredOf(key, now) })
  try {
    // The adapter's own create: the Local API's would take `req` over and clear the request's file.
    await payload.db.create({ collection: CLAIMS_SLUG, data: { expiresAt: new Date(now.getTime() + ttlMs).toISOString(), key }, req })
    return true
  } catch (err) {
    if (isDuplicate(err)) return false
    throw err
  }
}

/** Gives `key` back (a save that failed: its receipt may be used again). */
export async function releaseClaim(payload: Payload, key: string, req?: PayloadRequest): Promise<void> {
  await payload.db.deleteMany({ collection: CLAIMS_SLUG, req, where: { key: { equals: key } } })
}

/** Removes every expired claim (run now and then: spent receipts expire after 6 h). */
export async function pruneClaims(payload: Payload): Promise<void> {
  await payload.db.deleteMany({ collection: CLAIMS_SLUG, where: { expiresAt: { less_than_equal: new Date().toISOString() } } })
}
