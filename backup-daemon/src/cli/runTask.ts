/**
 * @module cli/runTask
 * `verify`, `restore` and `drill` are the daemon's own tasks (`tasks/createJobTasks`, the path the API, the
 * UI and the drill schedule take): the daemon is built as `run` builds it (`daemon/createDaemon`: no
 * schedules, no server; a restore killed earlier is put right first), the task is started with trigger
 * `cli`, its log lines and progress go to the reporter as the web UI shows them, and it ends as one record
 * in the job's history (`<dataDir>/history/`), which a live daemon beside it lists too. Only the task's job
 * is built: the start-up sweep of leftovers (`engine/startupCleanup`) would otherwise reach every storage of
 * every job, costing each command seconds (and warning of an unrelated storage's outage). A request refused
 * before it starts (a storage the job lacks, a target outside what is allowed, a snapshot no storage lists)
 * prints why. SIGINT/SIGTERM cancel the task (exit 130).
 */
import type { DaemonConfig } from '../config/types.js'
import { createDaemon } from '../daemon/createDaemon.js'
import { EngineError, SnapshotNotFoundError } from '../runs/errors.js'
import type { RunRecord } from '../runs/history.js'
import type { JobTasks } from '../tasks/createJobTasks.js'
import { TaskRefusedError } from '../tasks/TaskRefusedError.js'
import type { TaskView } from '../tasks/TaskView.js'
import { nextSignal } from './output.js'
import { createReadLimiter } from './limitReads.js'
import type { Reporter } from './terminal/Reporter.js'

export interface CliTaskOptions {
  /** `--limit-download`: bytes per second read from the storages, at most. */
  limitBytesPerSecond?: number
}

/**
 * Starts a task of `job` with `start` and follows it to its end; resolves with the exit code: 0 success,
 * 1 failed (or refused: busy, no such snapshot), 2 refused as a usage error (400), 130 cancelled by a signal.
 */
export async function runTask(
  config: DaemonConfig,
  job: string,
  command: string,
  start: (tasks: JobTasks) => Promise<TaskView>,
  reporter: Reporter,
  options: CliTaskOptions = {},
): Promise<number> {
  const limiter = options.limitBytesPerSecond ? createReadLimiter(options.limitBytesPerSecond) : undefined
  // A job the config lacks leaves no job: the task is refused as for an unknown job (JobNotFoundError).
  const daemon = await createDaemon(
    { ...config, jobs: config.jobs.filter((entry) => entry.name === job) },
    {
      schedule: false,
      ...(limiter && { wrapStorage: (storage) => limiter.wrap(storage) }),
      onTaskLog: (name, level, message) => {
        if (name === job) reporter.message(level, message)
      },
    },
  )
  try {
    try {
      await start(daemon.tasks)
    } catch (err) {
      if (!(err instanceof TaskRefusedError || err instanceof EngineError)) throw err
      reporter.message('error', `${command}: ${err.message}`)
      reporter.close()
      return err instanceof TaskRefusedError && err.status === 400 ? 2 : err instanceof SnapshotNotFoundError ? 1 : err.name === 'JobNotFoundError' ? 2 : 1
    }
    let record: RunRecord | undefined
    const unfollow = daemon.tasks.follow(job, { progress: (progress) => reporter.progress(progress), end: (ended) => (record = ended) })
    void nextSignal().then((signal) => {
      if (!daemon.tasks.busy(job)) return
      reporter.message('warn', `${signal}: cancelling the ${command}`)
      daemon.tasks.cancel(job)
    })
    await daemon.tasks.whenDone(job)
    unfollow?.()
    if (record) reporter.summary(record)
    reporter.close()
    return record?.result === 'success' ? 0 : record?.result === 'cancelled' ? 130 : 1
  } finally {
    await daemon.stop()
  }
}
