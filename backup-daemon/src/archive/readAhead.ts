/**
 * @module archive/readAhead
 * Overlaps the per-file round trips of a source with the archive writer. A tree of tiny files costs
 * per entry, not per byte: each one is an lstat, an open, an fstat, a read and a close on the libuv
 * thread pool, and one at a time the writer mostly waits for them (measured: 200k files of 0-2 KiB,
 * a third of the daemon's time idle). So, ahead of the writer, the next entries are pulled from the
 * source and the bytes of small ones (`read`) are requested at once, up to `entries` entries and
 * `bytes` bytes in flight; the writer still takes them in order.
 *
 * The source's iterator is never advanced past an entry whose bytes are streamed (`open`) before the
 * writer has opened it: a source may hand out, with the entry, a descriptor it closes when the walk
 * moves on unclaimed (`sources/local/index.ts` does).
 */
import type { SourceEntry } from '../sources/types.js'

export interface ReadAheadItem {
  entry: SourceEntry
  /** The bytes of a small file, already requested (`entry.read`). */
  data?: Promise<Buffer>
}

export interface ReadAheadLimits {
  /** @default 64 */
  entries?: number
  /** @default 4 MiB */
  bytes?: number
}

export async function* readAhead(source: AsyncIterable<SourceEntry>, signal: AbortSignal, limits: ReadAheadLimits = {}): AsyncGenerator<ReadAheadItem> {
  const maxEntries = limits.entries ?? 64
  const maxBytes = limits.bytes ?? 4 * 1024 * 1024
  const iterator = source[Symbol.asyncIterator]()
  const queue: ReadAheadItem[] = []
  let queuedBytes = 0
  let done = false
  /** An entry streamed through `open` is queued: the iterator waits until the writer has taken it. */
  let barrier = false
  let failure: { error: unknown } | undefined
  let pulling: Promise<void> | undefined

  const pull = async () => {
    while (!done && !barrier && queue.length < maxEntries && queuedBytes < maxBytes) {
      signal.throwIfAborted()
      const next = await iterator.next()
      if (next.done) {
        done = true
        break
      }
      const entry = next.value
      if (entry.type === 'file' && entry.read && entry.size !== undefined && entry.open) {
        const data = entry.read(signal)
        // Seen when the writer awaits it; this keeps an early failure from being "unhandled".
        data.catch(() => {})
        queue.push({ entry, data })
        queuedBytes += entry.size
      } else {
        queue.push({ entry })
        if (entry.type === 'file' && entry.open) barrier = true
      }
    }
  }
  const startPull = () => {
    if (pulling || done || barrier || failure) return
    pulling = pull()
      .catch((error: unknown) => {
        failure = { error }
      })
      .finally(() => {
        pulling = undefined
      })
  }

  try {
    for (;;) {
      startPull()
      if (queue.length === 0) {
        if (failure) throw failure.error
        if (done) return
        // Nothing queued and the source not at its end: a pull is running (startPull saw to it).
        if (!pulling) throw new Error('readAhead: no entry pending and none being pulled')
        await pulling
        continue
      }
      const item = queue.shift()!
      if (item.data) queuedBytes -= item.entry.size!
      yield item
      // The writer is done with the item: a streamed one has been opened, the iterator may move on.
      if (!item.data && item.entry.type === 'file' && item.entry.open) barrier = false
    }
  } finally {
    await pulling
    await iterator.return?.()
  }
}
