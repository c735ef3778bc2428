/**
 * @module runs/progress
 * The live progress of a run as the API shows it (field `progress` of a job status while a backup runs,
 * events of `GET /jobs/{name}/progress`). Shared with the restore/verify tasks: the shape is the
 * session's contract, so fields only ever get added.
 */

export type RunPhase = 'preparing' | 'hooks' | 'dumping' | 'archiving' | 'uploading' | 'retention' | 'verifying' | 'restoring' | 'finishing'

export interface StorageProgress {
  /** The storage's name in the job. */
  storage: string
  bytesWritten: number
  /** True once the storage holds the committed snapshot. */
  done: boolean
}

export interface RunProgress {
  kind: 'backup' | 'restore' | 'verify' | 'drill'
  phase: RunPhase
  /** RFC 3339. */
  startedAt: string
  /** Name of the source being read. */
  currentSource?: string
  /** Path of the entry being read, relative to its source. */
  currentFile?: string
  filesRead: number
  bytesRead: number
  /** When known: a local tree counted up front, else the previous successful run's bytes read. */
  totalBytes?: number
  /** Empty for verify and restore. */
  storages: StorageProgress[]
  /** Smoothed read rate. */
  bytesPerSecond: number
  /** Only when `totalBytes` is known and the rate is above zero. */
  etaSeconds?: number
  /** 0..100, only when `totalBytes` is known. */
  percent?: number
}
