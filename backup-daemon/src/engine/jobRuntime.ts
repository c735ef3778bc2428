/**
 * @module engine/jobRuntime
 * What the engine keeps per job while it lives (config, storages, notifiers, run state, schedule, the
 * last view shown) and the two loggers every part of the engine writes through. Built once from the
 * config; the run lifecycle, the scheduler and the job views share these objects.
 */
import type { Cron } from 'croner'
import type { DaemonConfig, JobConfig } from '../config/types.js'
import type { LogLevel } from '../logs/formatLine.js'
import { createNotifiers } from '../notify/createNotifiers.js'
import type { Notifier } from '../notify/types.js'
import { openJobRepository, type JobRepository } from '../repository/jobRepository.js'
import { JobNotFoundError } from '../runs/errors.js'
import type { Storage } from '../storages/types.js'
import type { DaemonLogHub } from './createLogHub.js'
import type { ProgressTracker } from './progress/ProgressTracker.js'
import type { JobRunStatus, JobView } from './types.js'

export interface JobRuntime {
  config: JobConfig
  repository: JobRepository
  notifiers: Notifier[]
  /** The start-up sweep of leftovers; a run waits for it. */
  swept?: Promise<void>
  status: JobRunStatus
  controller?: AbortController
  done?: Promise<void>
  cron?: Cron
  /** Counts the run in flight; set from the start of a run until it is idle again. */
  tracker?: ProgressTracker
  /** croner's next fire time, kept until it passes (computing it costs tens of µs per job and request). */
  nextRun?: { at: number; iso: string }
  /** The job's last view and what it was built from, reused while none of it changes (see `jobViews`). */
  shown?: ShownView
}

/** A frozen `JobView` with the inputs it was built from; a view with `progress` is never kept (it moves on every call). */
export interface ShownView {
  view: JobView
  status: JobRunStatus
  saved: ShownState
  next: string
}

/** What a `JobView` shows of the saved state, copied (a stored reference would follow any change made in place). */
export type ShownState = [lastRun: string, success: boolean, duration: string | undefined, error: string | undefined]

export type Log = (level: LogLevel, message: string) => void

/** The system log, and a job's log whose warnings and errors also go to the system log (prefixed `[job]`). */
export interface EngineLog {
  system: Log
  job(name: string): Log
}

export function engineLog(logs: DaemonLogHub): EngineLog {
  const system: Log = (level, message) => logs.log({ kind: 'system' }, level, message)
  return {
    system,
    job: (name) => (level, message) => {
      logs.log({ kind: 'job', job: name }, level, message)
      if (level !== 'info') system(level, `[${name}] ${message}`)
    },
  }
}

/**
 * The jobs of the config, idle; storages log to their job's log (e.g. sftp's host-key warnings).
 * `wrapStorage`: every storage as built (the CLI's `--limit-download`).
 */
export function jobRuntimes(config: DaemonConfig, log: EngineLog, wrapStorage?: (storage: Storage) => Storage): Map<string, JobRuntime> {
  return new Map<string, JobRuntime>(
    config.jobs.map((job) => [
      job.name,
      {
        config: job,
        repository: openJobRepository(job, { context: { log: log.job(job.name) }, dataDir: config.dataDir, ...(wrapStorage && { wrapStorage }) }),
        notifiers: createNotifiers(job.notify),
        status: 'idle',
      },
    ]),
  )
}

/** The lookup every engine method starts with: `JobNotFoundError` for a name the config does not have. */
export const runtimeLookup =
  (jobs: Map<string, JobRuntime>) =>
  (name: string): JobRuntime => {
    const job = jobs.get(name)
    if (!job) throw new JobNotFoundError(name)
    return job
  }
