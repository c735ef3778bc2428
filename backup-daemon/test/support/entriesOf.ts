/**
 * @module test/support/entriesOf
 * A source's entries one after another, read through its one required way (`Source.batches`): for tests
 * that look at each entry. Each entry is done with before the next one is taken, so the batch contract
 * holds (a `data` view is used before the source reuses its memory). `dumpOf` reads a database source's
 * dump whole.
 */
import { buffer } from 'node:stream/consumers'
import type { Source, SourceEntry } from '../../src/sources/types.js'

export async function* entriesOf(source: Pick<Source, 'batches'>, signal: AbortSignal): AsyncGenerator<SourceEntry> {
  for await (const batch of source.batches(signal)) yield* batch
}

/** The bytes of the source's last file entry (a database source's one dump), empty when it has none. */
export async function dumpOf(source: Pick<Source, 'batches'>, signal = new AbortController().signal): Promise<Buffer> {
  let bytes = Buffer.alloc(0)
  for await (const entry of entriesOf(source, signal)) if (entry.open) bytes = await buffer(entry.open(signal))
  return bytes
}
