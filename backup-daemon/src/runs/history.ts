/**
 * @module runs/history
 * One ended run (backup, restore or verify) as kept in the job's history and answered by
 * `GET /jobs/{name}/history`; the session's shared contract, so fields only ever get added.
 */

export interface RunRecord {
  /** Unique and sortable: start time (ms, base 36, fixed width) + random. */
  id: string
  job: string
  kind: 'backup' | 'restore' | 'verify' | 'drill'
  trigger: 'schedule' | 'manual' | 'cli' | 'api'
  /** RFC 3339. */
  startedAt: string
  endedAt: string
  durationMs: number
  result: 'success' | 'failed' | 'cancelled'
  bytesRead: number
  /** Bytes written: a backup's largest per storage (the archive's size when it has archive storages), or bytes restored. */
  bytesWritten: number
  /** A backup: what each storage of the job got, as its writer reports it (the archive's bytes; restic's `data_added`). */
  storages?: { storage: string; bytesWritten: number }[]
  filesRead?: number
  /** Snapshot created (backup) or used (restore, verify). */
  snapshot?: string
  /** Restore: the folder or database written. */
  target?: string
  /** Why the run failed; never a secret (the same text as the job status' error). */
  error?: string
  /** A task that succeeded: what it did, one line. */
  summary?: string
  /** A drill: the copies that could not be proven (no record to compare with), each with why; a drill with these proved less than it was asked. */
  notProven?: string[]
}

export interface RunHistory {
  append(record: RunRecord): Promise<void>
  /** Newest first, at most `limit` (default: all kept). */
  list(job: string, limit?: number): RunRecord[]
}

/** A drill that proved at least one copy: a successful one whose copies all had nothing to compare with (no record) proved nothing. */
export const drillProvedSomething = (record: RunRecord): boolean =>
  record.kind === 'drill' && record.result === 'success' && (!record.notProven?.length || Boolean(record.summary?.startsWith('restore proven')))
