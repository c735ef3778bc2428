/**
 * @module tasks/TaskView
 * A restore or verify task as the API shows it (`GET /jobs/{name}/tasks/current`, CONTRACT.md issue 14),
 * and what a restore writes to.
 */
import type { RunProgress } from '../runs/progress.js'

export type TaskKind = 'verify' | 'restore' | 'drill'
export type TaskStatus = 'running' | 'cancelling' | 'success' | 'failed' | 'cancelled'

export interface TaskView {
  id: string
  job: string
  kind: TaskKind
  /** The listed snapshot name the task reads. */
  snapshot: string
  /** Restore only: the folder written, or `database <name>` of `restore.databases`. */
  target?: string
  status: TaskStatus
  /** The latest progress (refreshed about 4 times a second while the task runs; the final figures after). */
  progress?: RunProgress
  startedAt: string
  endedAt?: string
  /** Failed or cancelled: why (never a secret). */
  error?: string
  /** Ended: what was done, one line (e.g. "restored 12 file(s), 3 folder(s) ... into /srv/restore/x"). */
  summary?: string
}

/** Where a restore writes: a folder below a `restore.roots` entry, or a database of `restore.databases`. */
export type RestoreTarget =
  | { kind: 'files'; path: string; overwrite?: boolean; intoLibrary?: boolean; libraryId?: number }
  | { kind: 'database'; source: string; database: string; overwrite?: boolean }

/**
 * What only the operator on the machine asks (the CLI, as whoever runs it): any folder, not only below
 * `restore.roots` (`guidMap`: where an upload's old → new id map goes, default `guid-map.json` in the
 * folder); or the database sources put back where they read from (`sources`: only those; none: all).
 */
export type OperatorRestoreTarget =
  | { kind: 'folder'; path: string; overwrite?: boolean; intoLibrary?: boolean; libraryId?: number; guidMap?: string }
  | { kind: 'in-place'; sources: string[]; overwrite?: boolean }
