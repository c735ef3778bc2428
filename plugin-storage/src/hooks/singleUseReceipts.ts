/**
 * @module hooks/singleUseReceipts
 * A client-upload receipt (3.x `clientUploadContext`, 4.x `uploadReference`, the TUS receipt) makes one
 * document. Without this, the same receipt sent twice created a second document over the same object:
 * the core gave it a new unique name that is not on the host, and deleting either document removed the
 * other's file.
 *
 * Collection hooks: `beforeOperation` (after the receipt was verified) refuses a receipt already used
 * and reserves it for the running request; `afterOperation` marks it used until it expires (6 h, the
 * receipt's lifetime); `afterError` frees the reservation, so a save that failed (a validation error,
 * a failed size upload) can be retried with the same receipt.
 *
 * What decides is a claim in the database (claims/claims.ts), taken in the save's transaction: every CMS
 * instance on the database sees it, a save rolled back takes it with it, and of two instances given one
 * receipt at the same instant one waits for the other and is refused. The per-process memory only spares
 * the database a write for a receipt this process already saw spent. A storage receipt is also refused
 * when a document already holds its upload folder; a TUS receipt's video can be bound to one document
 * only (`bindVideoToken`), also checked in the database.
 */
import {
  APIError,
  type CollectionAfterErrorHook,
  type CollectionAfterOperationHook,
  type CollectionBeforeOperationHook,
  type PayloadRequest,
  type Where,
} from 'payload'

import { createHash } from 'node:crypto'

import { releaseClaim, takeClaim } from '../claims/claims.js'
import { RECEIPT_LIFETIME_MS } from '../constants.js'
import type { PluginContext } from '../context.js'

/** Each plugin instance keeps its own reservation in `req.context` (the plugin may be applied twice). */
let instances = 0
/** How long a receipt stays reserved by a request whose end was never reported (Local API errors). */
const RESERVATION_MS = 15 * 60 * 1000
/** Entries kept at most: each costs a signed-in user a document save, so this is days of uploads. */
const MAX_ENTRIES = 100_000

/** Keys with an expiry, at most `maxEntries` (the oldest dropped first). */
export class ExpiringSet {
  private readonly entries = new Map<string, number>()
  private writes = 0

  constructor(
    private readonly maxEntries = MAX_ENTRIES,
    private readonly now: () => number = Date.now,
  ) {}

  has(key: string): boolean {
    const expiresAt = this.entries.get(key)
    if (expiresAt === undefined) return false
    if (expiresAt > this.now()) return true
    this.entries.delete(key)
    return false
  }

  add(key: string, ttlMs: number): void {
    this.entries.delete(key)
    this.entries.set(key, this.now() + ttlMs)
    if (++this.writes % 1000 === 0) this.dropExpired()
    // Full: drop the oldest (a Map keeps insertion order). Expired ones are swept every 1000 additions.
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) break
      this.entries.delete(oldest)
    }
  }

  delete(key: string): void {
    this.entries.delete(key)
  }

  get size(): number {
    return this.entries.size
  }

  private dropExpired(): void {
    const now = this.now()
    for (const [key, expiresAt] of this.entries) if (expiresAt <= now) this.entries.delete(key)
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** One key per receipt: its collection and where its bytes went (a fresh folder or video each time). */
function receiptKey(collection: string, context: Record<string, unknown>): string {
  const where = Object.keys(context)
    .filter((k) => k !== 'signedReceipt')
    .sort()
    .map((k) => [k, context[k]])
  return `${collection}\u0000${JSON.stringify(where)}`
}

/** The receipt's claim in the database: a digest of its key (a receipt's fields can be long). */
const claimOf = (key: string): string => `receipt:${createHash('sha256').update(key).digest('hex')}`

/** A document of the collection already holds the upload folder of this storage receipt. */
async function folderInUse(req: PayloadRequest, collection: string, context: Record<string, unknown>): Promise<boolean> {
  // 3.x records the folder in `_objectKey`; 4.x in `prefix` (always a fresh `{prefix}/{uuid}` there).
  const where: Where | undefined =
    typeof context._objectKey === 'string' && context._objectKey
      ? { _objectKey: { equals: context._objectKey } }
      : typeof context.prefix === 'string' && context.prefix
        ? { prefix: { equals: context.prefix } }
        : undefined
  if (!where) return false
  const { totalDocs } = await req.payload.count({ collection, overrideAccess: true, req, where })
  return totalDocs > 0
}

/** The three hooks, sharing one memory per plugin instance. */
export interface SingleUseReceiptHooks {
  afterError: CollectionAfterErrorHook
  afterOperation: CollectionAfterOperationHook
  beforeOperation: CollectionBeforeOperationHook
}

export function singleUseReceipts(ctx: PluginContext): SingleUseReceiptHooks {
  const used = new ExpiringSet()
  const CONTEXT_KEY = `storageHostReceipt${++instances}`
  const refuse = (): never => {
    throw new APIError('This upload receipt was already used for a document. Upload the file again.', 400)
  }

  return {
    /** `beforeOperation`: refuse a used receipt, reserve it for this request. */
    beforeOperation: async ({ args, collection, operation }) => {
      const req = args.req
      const context = (req?.file as { clientUploadContext?: unknown } | undefined)?.clientUploadContext
      if (!req || !isObject(context) || (operation !== 'create' && operation !== 'update' && operation !== 'updateByID')) return args
      const key = receiptKey(collection.slug, context)
      if (used.has(key)) refuse()
      // Reserved before the first await: a concurrent request with the same receipt is refused above.
      used.add(key, RESERVATION_MS)
      req.context ??= {}
      req.context[CONTEXT_KEY] = key
      const spentElsewhere = !(await takeClaim(req.payload, claimOf(key), RECEIPT_LIFETIME_MS, req).catch((err: unknown) => {
        used.delete(key)
        delete req.context[CONTEXT_KEY]
        throw err
      }))
      if (spentElsewhere) {
        used.add(key, RECEIPT_LIFETIME_MS)
        delete req.context[CONTEXT_KEY]
        refuse()
      }
      const target = ctx.options.collections.get(collection.slug)
      if (target?.target === 'storage' && (await folderInUse(req, collection.slug, context).catch(() => false))) {
        used.add(key, RECEIPT_LIFETIME_MS)
        delete req.context[CONTEXT_KEY]
        refuse()
      }
      return args
    },
    /** `afterOperation`: the document exists; the receipt is spent until it expires. */
    afterOperation: ({ operation, req, result }) => {
      const key = req?.context?.[CONTEXT_KEY]
      if (typeof key === 'string' && (operation === 'create' || operation === 'update' || operation === 'updateByID')) {
        used.add(key, RECEIPT_LIFETIME_MS)
        delete req.context[CONTEXT_KEY]
      }
      return result
    },
    /**
     * `afterError`: the save failed; the receipt may be used again. Its claim went with the rolled-back
     * transaction; on a database without transactions it is removed here.
     */
    afterError: async ({ req }) => {
      const key = req?.context?.[CONTEXT_KEY]
      if (typeof key === 'string') {
        used.delete(key)
        delete req.context[CONTEXT_KEY]
        await releaseClaim(req.payload, claimOf(key), req).catch((err: Error) =>
          req.payload.logger.warn({ err: err.message, msg: 'storage-host: a failed save’s receipt could not be given back; it expires in 6 h' }),
        )
      }
    },
  }
}
