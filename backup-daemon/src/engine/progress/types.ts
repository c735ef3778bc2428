/**
 * @module engine/progress/types
 * The live progress of a run (backup, restore or verify), as CONTRACT.md (issue 14) writes it.
 * Created by branch `restore` for its tasks; branch `progress` owns this file at merge.
 */
export type RunPhase = 'preparing' | 'hooks' | 'dumping' | 'archiving' | 'uploading' | 'retention'
  | 'verifying' | 'restoring' | 'finishing'
export interface StorageProgress { storage: string; bytesWritten: number; done: boolean }
export interface RunProgress {
  kind: 'backup' | 'restore' | 'verify'
  phase: RunPhase
  startedAt: string            // RFC 3339
  currentSource?: string       // source name
  currentFile?: string         // path relative to the source
  filesRead: number
  bytesRead: number
  totalBytes?: number          // when known (local tree counted up front, previous run's size, snapshot size)
  storages: StorageProgress[]  // empty for verify/restore
  bytesPerSecond: number       // smoothed
  etaSeconds?: number          // only when totalBytes is known
  percent?: number             // 0..100, only when totalBytes is known
}
