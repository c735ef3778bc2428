/**
 * @module notify/types
 * What a notifier is told when a run ends: the JSON body of a webhook, and the facts of an email.
 */

export interface RunReport {
  /** What ended: a backup run, or a restore drill (issue 25: its `snapshot` is null, `error` says what differed). Absent: a backup. */
  kind?: 'backup' | 'drill'
  job: string
  /** `cancelled` runs are reported to the notifiers listening for `failure`. */
  status: 'success' | 'failure' | 'cancelled'
  startedAt: string
  finishedAt: string
  /** Human duration, e.g. `1m2.5s`. */
  duration: string
  durationSeconds: number
  /** "" on success. */
  error: string
  /** The committed snapshot of a successful run, else null. */
  snapshot: {
    name: string
    size: number
    /** The whole snapshot's sha256; absent when no storage of the job keeps one (a restic-only job). */
    sha256?: string
    parts: number
    storages: string[]
    /** What else names the run where it is stored (the restic commit snapshot's id per repository). */
    references?: { label: string; id: string }[]
  } | null
  /** The machine that ran the job (several daemons may report to one endpoint). */
  host: string
}

/** What a notifier may read besides the report (not part of the webhook's JSON body). */
export interface RunContext {
  /** The run's own log lines, oldest first (the last few hundred), as formatted for the job log. */
  logLines: string[]
}

/** One configured notifier. `send` and `started` reject on failure; the caller logs it and goes on. */
export interface Notifier {
  /** For log lines: type and host, never a secret (webhook URLs often carry a token). */
  readonly label: string
  wants(report: RunReport): boolean
  send(report: RunReport, context?: RunContext): Promise<void>
  /** Told when a run starts (healthchecks' `/start` ping); only notifiers that define it. */
  started?(job: string): Promise<void>
}
