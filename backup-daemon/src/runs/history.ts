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
  /** Archive bytes written to each storage (a backup), or bytes restored. */
  bytesWritten: number
  filesRead?: number
  /** Snapshot created (backup) or used (restore, verify). */
  snapshot?: string
  /** Restore: the folder or database written. */
  target?: string
  /** Why the run failed; never a secret (the same text as the job status' error). */
  error?: string
}

export interface RunHistory {
  append(record: RunRecord): Promise<void>
  /** Newest first, at most `limit` (default: all kept). */
  list(job: string, limit?: number): RunRecord[]
}
