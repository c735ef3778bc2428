/**
 * @module adapter/uploadTracker
 * plugin-cloud-storage uploads the original and every image size in parallel, one `handleUpload` call
 * each. When one fails, the others may already be on the host: the tracker (one per request, in
 * `req.context`) remembers what was written so the failing call deletes it, and uploads that finish
 * after a failure delete themselves. No orphan is left behind.
 */
import type { PayloadRequest } from 'payload'

const KEY = 'hostStorageUploadTracker'

interface Tracker {
  failed: boolean
  written: Set<string>
}

function trackerOf(req: PayloadRequest): Tracker {
  req.context ??= {}
  let tracker = req.context[KEY] as Tracker | undefined
  if (!tracker) {
    tracker = { failed: false, written: new Set() }
    req.context[KEY] = tracker
  }
  return tracker
}

/**
 * Runs one upload. On success the key is recorded (or removed again when a sibling already failed);
 * on failure every recorded key of the request is deleted and the error is rethrown.
 */
export async function trackUpload(req: PayloadRequest, key: string, upload: () => Promise<void>, remove: (key: string) => Promise<void>): Promise<void> {
  const tracker = trackerOf(req)
  try {
    await upload()
  } catch (err) {
    tracker.failed = true
    const written = [...tracker.written]
    tracker.written.clear()
    // A half-written object may exist too: delete the failed key as well (deletes are idempotent).
    await Promise.allSettled([...written, key].map((k) => remove(k)))
    throw err
  }
  if (tracker.failed) await remove(key).catch(() => undefined)
  else tracker.written.add(key)
}
