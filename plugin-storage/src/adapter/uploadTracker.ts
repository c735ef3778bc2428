/**
 * @module adapter/uploadTracker
 * The upload hook (`wiring/uploadHooks.ts`) writes the original and every image size in parallel, one `handleUpload` call
 * each. When one fails, the others may already be on the host: the tracker (one per request, in
 * `req.context`) remembers what was written so the failing call deletes it, and uploads that finish
 * after a failure delete themselves. No orphan is left behind.
 */
import type { CollectionBeforeOperationHook, PayloadRequest } from 'payload'

const KEY = 'storageHostUploadTracker'

interface Tracker {
  failed: boolean
  pending: Set<Promise<void>>
  written: Set<string>
}

function trackerOf(req: PayloadRequest): Tracker {
  req.context ??= {}
  let tracker = req.context[KEY] as Tracker | undefined
  if (!tracker) {
    tracker = { failed: false, pending: new Set(), written: new Set() }
    req.context[KEY] = tracker
  }
  return tracker
}

/**
 * Runs one upload and records its key. On failure it waits for the sibling uploads of the request to
 * settle (the hook's `Promise.all` does not), deletes every recorded key and the failed one
 * (a half-written object may exist; deletes are idempotent), then rethrows.
 */
export async function trackUpload(req: PayloadRequest, key: string, upload: () => Promise<void>, remove: (key: string) => Promise<void>): Promise<void> {
  const tracker = trackerOf(req)
  const running = upload()
  tracker.pending.add(running)
  try {
    await running
    tracker.written.add(key)
    return
  } catch (err) {
    tracker.failed = true
    tracker.pending.delete(running)
    await Promise.allSettled([...tracker.pending])
    const keys = [...tracker.written, key]
    tracker.written.clear()
    await Promise.allSettled(keys.map((k) => remove(k)))
    throw err
  } finally {
    tracker.pending.delete(running)
  }
}

const OPERATION_KEY = 'storageHostOperation'

/** `beforeOperation` hook: remembers whether the request creates or updates, for {@link undoCreate}. */
export const rememberOperation: CollectionBeforeOperationHook = ({ args, operation }) => {
  if (args.req && (operation === 'create' || operation === 'update' || operation === 'updateByID')) {
    args.req.context ??= {}
    args.req.context[OPERATION_KEY] ??= operation
  }
  return args
}

/**
 * A failed upload of a document being created removes that document again. Databases with transactions
 * roll the create back anyway; without them (db-sqlite's default) the document would otherwise stay,
 * pointing at files that are not on the host. Runs once per request.
 */
export async function undoCreate(req: PayloadRequest, collection: string, id: unknown): Promise<void> {
  const ctx = req.context ?? {}
  if (ctx[OPERATION_KEY] !== 'create' || id === undefined || id === null || ctx.storageHostUndone) return
  ctx.storageHostUndone = true
  await req.payload
    .delete({ collection, context: { skipCloudStorage: true }, id: id as number | string, overrideAccess: true, req })
    .catch((err: Error) => req.payload.logger.error({ err: err.message, msg: `storage-host: could not remove document ${String(id)} after a failed upload` }))
}
