/**
 * @module test/support/entriesOf
 * A source's entries one after another, read through its one required way (`Source.batches`): for tests
 * that look at each entry. Each entry is done with before the next one is taken, so the batch contract
 * holds (a `data` view is used before the source reuses its memory).
 */
import type { Source, SourceEntry } from '../../src/sources/types.js'

export async function* entriesOf(source: Pick<Source, 'batches'>, signal: AbortSignal): AsyncGenerator<SourceEntry> {
  for await (const batch of source.batches(signal)) yield* batch
}
