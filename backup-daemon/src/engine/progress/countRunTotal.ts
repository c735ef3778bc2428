/**
 * @module engine/progress/countRunTotal
 * The total a first run will read, for its progress' percentage and ETA: the sum of what each source's
 * factory counts (`SourceFactory.countTotals`, e.g. the local source's file sizes). Only when every
 * source of the job can count: a partial total would make the percentage lie. The sources are counted
 * one after another, as they are read.
 */
import { sourceFactory, type SourceConfig } from '../../sources/all.js'

/** Undefined when some source has no counter (or the job has no source). */
export function countRunTotal(sources: readonly SourceConfig[], signal: AbortSignal): Promise<number> | undefined {
  const counters = sources.map((source) => {
    const count = sourceFactory(source.type)?.countTotals
    return count && (() => count(source, signal))
  })
  if (counters.length === 0 || !counters.every((count) => count !== undefined)) return undefined
  return (async () => {
    let total = 0
    for (const count of counters) total += await count!()
    return total
  })()
}
