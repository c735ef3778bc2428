/**
 * @module engine/types
 * What the HTTP server (and the CLI) may ask of the engine. The server never touches sources,
 * storages or archives itself; it only calls these methods and maps the errors of `runs/errors.ts`
 * to Problem responses.
 */
import type { StorageDown } from './startupCleanup.js'
import type { RunHistory, RunRecord } from '../runs/history.js'
import type { RunListener } from '../runs/RunWatchers.js'
import type { RunProgress } from '../runs/progress.js'
import type { SnapshotDownload, SnapshotView } from '../repository/types.js'

export type { SnapshotDownload, SnapshotView }

/** The engine's own run state of a job; the API shows `cancelling` as `running` plus `cancelling: true`. */
export type JobRunStatus = 'idle' | 'running' | 'cancelling'

/**
 * How the newest ended run went. In the state file every member is there ("" when empty); in a
 * `JobView` empty `duration` and `error` are left out, as the original service does.
 */
export interface LastResult {
  success: boolean
  /** Human duration, e.g. "1m2.5s". */
  duration?: string
  /** Why the run failed; absent on success. */
  error?: string
}

/**
 * A job as the API shows it (JobSummary and JobStatus of the spec), in the original service's shape:
 * `status` is only `idle` or `running`, and empty optional fields are left out (a job that never ended a
 * run has no `lastResult`, so clients do not take it for a failure). Timestamps are RFC 3339.
 */
export interface JobView {
  name: string
  active: boolean
  schedule: string
  sourcesCount: number
  storagesCount: number
  status: 'idle' | 'running'
  /** Present (true) while a cancel of the run in flight is in progress. */
  cancelling?: true
  /** Absent until a run has ended. */
  lastResult?: LastResult
  /** Start of the newest run; absent before the first. */
  lastRun?: string
  /** Absent for inactive or unscheduled jobs. */
  nextRun?: string
  /** The run in flight, live; absent when idle (an addition to the original's shape). */
  progress?: RunProgress
}

/** Metadata of the newest run, for `GET /jobs/{name}/logs`. Strings are "" when unknown. */
export interface RunInfo {
  startTime: string
  endTime: string
  duration: string
  error: string
  /** idle | running | cancelling | success | failed | cancelled */
  status: string
}

export type LogScope = { kind: 'system' } | { kind: 'job'; job: string }

export interface LogHub {
  /** Whether this log is kept at all (`logs.system` / `logs.perJob`). */
  enabled(scope: LogScope): boolean
  /** The newest `count` lines, oldest first. */
  tail(scope: LogScope, count: number): string[]
  /** Calls `listener` for every new line until the returned function is called. */
  subscribe(scope: LogScope, listener: (line: string) => void): () => void
  /** Adds a line (the server logs its own events, e.g. start-up and refused logins, to the system log). */
  append(scope: LogScope, line: string): void
}

export interface Engine {
  listJobs(): JobView[]
  /** Throws `JobNotFoundError`. */
  getJob(name: string): JobView
  /** The job's configuration with every secret replaced by "[redacted]". Throws `JobNotFoundError`. */
  jobConfig(name: string): Record<string, unknown>
  runInfo(name: string): RunInfo
  /**
   * Reserves the run slot and returns at once; the backup goes on in the background.
   * Throws `JobNotFoundError`, `JobBusyError` (already running), `EngineStoppingError`.
   */
  run(name: string, trigger: RunRecord['trigger']): { startedAt: string }
  /** Throws `JobNotFoundError`, `NoRunInFlightError`. */
  cancel(name: string): { cancelledAt: string }
  /**
   * Committed snapshots only, newest first, over every storage of the job that answers; a storage that does
   * not is marked down (`storagesDown`) until it answers again, never shown as empty. Throws `JobNotFoundError`.
   */
  listSnapshots(name: string): Promise<SnapshotView[]>
  /**
   * `filename` is a snapshot `name` or a split set ID as listed. Throws `JobNotFoundError`,
   * `SnapshotNotFoundError`, `FullDownloadUnsupportedError`.
   */
  openSnapshot(name: string, filename: string): Promise<SnapshotDownload>
  readonly logs: LogHub
  /** Prometheus exposition of the run metrics (`GET /metrics`); engines without metrics leave it out (404). */
  metrics?(): Promise<{ contentType: string; body: string }>
  /** The progress of the job's run in flight, undefined when idle. Throws `JobNotFoundError`. Engines without it leave it out. */
  progress?(name: string): RunProgress | undefined
  /** Calls `listener` with every progress snapshot and the record of every ended run of the job, until the returned function is called. */
  watchRuns?(name: string, listener: RunListener): () => void
  /** Ended runs per job (`GET /jobs/{name}/history`); engines without it leave it out. */
  readonly history?: RunHistory
  /** Storages marked down (their start-up sweep or a listing failed) until they answer again. Engines without it leave it out. */
  storagesDown?(): StorageDown[]
  /** Stops schedules, refuses new runs, cancels runs in flight and waits for them to clean up. */
  stop(): Promise<void>
}
