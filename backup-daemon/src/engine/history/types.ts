/**
 * @module engine/history/types
 * One ended run (backup, restore or verify) and the per-job history of them, as CONTRACT.md (issue 14)
 * writes it. Created by branch `restore` for its tasks; branch `progress` owns this file at merge.
 */
export interface RunRecord {
  id: string                   // unique, sortable (e.g. start time + random)
  job: string
  kind: 'backup' | 'restore' | 'verify'
  trigger: 'schedule' | 'manual' | 'cli' | 'api'
  startedAt: string; endedAt: string; durationMs: number
  result: 'success' | 'failed' | 'cancelled'
  bytesRead: number; bytesWritten: number; filesRead?: number
  snapshot?: string            // snapshot name created (backup) or used (restore/verify)
  target?: string              // restore: folder or database name
  error?: string               // never a secret
}
export interface RunHistory {
  append(record: RunRecord): Promise<void>
  list(job: string, limit?: number): RunRecord[]   // newest first
}
