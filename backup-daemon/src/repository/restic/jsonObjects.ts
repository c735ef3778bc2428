/**
 * @module repository/restic/jsonObjects
 * The objects at one nesting depth of a JSON document streamed in chunks, parsed one at a time: `restic
 * find --json` prints one line holding every node of a snapshot (hundreds of MB for a large tree), which
 * must not be held whole in memory.
 */
import type { Readable } from 'node:stream'

/** Yields each object that opens at `depth` (1: inside the top-level array or object) of the JSON in `stream`. */
export async function* jsonObjectsAt<T>(stream: Readable, depth: number): AsyncGenerator<T> {
  let level = 0
  let inString = false
  let escaped = false
  let pieces: Buffer[] = []
  let start: number
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    start = level > depth ? 0 : -1
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!
      if (inString) {
        if (escaped) escaped = false
        else if (c === 0x5c) escaped = true
        else if (c === 0x22) inString = false
        continue
      }
      if (c === 0x22) inString = true
      else if (c === 0x7b || c === 0x5b) {
        if (level === depth && c === 0x7b) start = i
        level++
      } else if (c === 0x7d || c === 0x5d) {
        level--
        if (level === depth && c === 0x7d && start !== -1) {
          pieces.push(chunk.subarray(start, i + 1))
          yield JSON.parse(Buffer.concat(pieces).toString('utf8')) as T
          pieces = []
          start = -1
        }
      }
    }
    // An object still open at the chunk's end continues in the next chunk.
    if (start !== -1) pieces.push(Buffer.from(chunk.subarray(start)))
  }
}
