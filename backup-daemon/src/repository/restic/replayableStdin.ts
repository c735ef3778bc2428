/**
 * @module repository/restic/replayableStdin
 * A dump's bytes for `restic backup --stdin` that can be handed to a second restic when the first one
 * could not take the repository's lock (another daemon's prune holds it; restic before 0.16 has no
 * `--retry-lock`). restic takes its lock before it reads stdin, so a refused attempt has read at most a
 * pipe's worth: the bytes pulled so far are kept (up to `keepLimit`) and replayed first. Beyond the
 * limit nothing is kept and the stream cannot start again (`replayable` false).
 */
import { Readable } from 'node:stream'

const keepLimit = 16 << 20

export interface ReplayableStdin {
  /** The stream for one attempt: the bytes kept, then the rest of the source. */
  attempt(): Readable
  /** Whether a new attempt still gets every byte. */
  readonly replayable: boolean
}

export function replayableStdin(source: Readable): ReplayableStdin {
  const iterator = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>
  /** Every chunk pulled from `source`, in order, while they fit `keepLimit`. */
  let kept: Buffer[] | undefined = []
  let keptBytes = 0
  let current: Readable | undefined
  let attempts = 0
  return {
    get replayable() {
      return kept !== undefined
    },
    attempt() {
      // The previous attempt stops pulling; a chunk it was waiting for still lands in `kept`.
      current?.destroy()
      const id = ++attempts
      async function* chunks(): AsyncGenerator<Buffer> {
        let sent = 0
        for (;;) {
          const list = kept
          if (list) while (sent < list.length) yield list[sent++]!
          if (id !== attempts) return
          const { value, done } = await iterator.next()
          if (done) {
            // A chunk pulled by an older attempt after this one replayed `kept`.
            if (kept) while (sent < kept.length) yield kept[sent++]!
            return
          }
          if (!kept) {
            yield value
            continue
          }
          kept.push(value)
          keptBytes += value.length
          if (keptBytes > keepLimit) {
            const rest = kept.slice(sent)
            kept = undefined
            yield* rest
          }
        }
      }
      current = Readable.from(chunks(), { objectMode: false })
      return current
    },
  }
}
