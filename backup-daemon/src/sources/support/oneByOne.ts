/**
 * @module sources/support/oneByOne
 * `Source.batches` for a source that makes one entry at a time (a dump, a generated file): each entry is a
 * batch of its own. Such a source hands out few entries, each streamed through `open`, so a batch per entry
 * costs nothing that counts, and every consumer reads every source through the one `batches` way.
 */
import type { SourceEntry } from '../types.js'

export async function* oneByOne(entries: AsyncIterable<SourceEntry>): AsyncGenerator<SourceEntry[]> {
  for await (const entry of entries) yield [entry]
}
