/**
 * @module tasks/memoryRunHistory
 * A `RunHistory` kept in memory (bounded per job): the engine's fallback when it is given no persistent
 * history, and what tests use.
 */
import type { RunHistory, RunRecord } from '../runs/history.js'

export function memoryRunHistory(limit = 100): RunHistory & { records: RunRecord[] } {
  const records: RunRecord[] = []
  return {
    records,
    append(record) {
      records.push(record)
      const ofJob = records.filter((r) => r.job === record.job)
      if (ofJob.length > limit) records.splice(records.indexOf(ofJob[0]!), 1)
      return Promise.resolve()
    },
    list(job, max = limit) {
      return records
        .filter((r) => r.job === job)
        .reverse()
        .slice(0, max)
    },
  }
}
