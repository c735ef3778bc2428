/**
 * @module cli/runTask
 * `verify` and `restore` run their work as the API's tasks do (`tasks/TaskRunner`): a `ProgressMeter`
 * counts what is read from the storages (`ReadOptions.onBytes`), so the terminal shows the figures the web
 * UI shows, the task's log lines (`[verify] ...`) go to the reporter, and it ends as a history record
 * (the `--json` summary). The record stays in memory: these commands never touch the daemon's state,
 * so they run beside a live daemon. SIGINT/SIGTERM cancel the task (exit 130).
 */
import type { RunRecord } from '../runs/history.js'
import { memoryRunHistory } from '../tasks/memoryRunHistory.js'
import { TaskRunner, type TaskContext, type TaskOutcome, type TaskSpec } from '../tasks/TaskRunner.js'
import type { JobConfig } from '../config/types.js'
import { archiveKeys } from '../repository/archiveKeys.js'
import type { ReadOptions } from '../repository/types.js'
import { nextSignal } from './output.js'
import { createReadLimiter, type ReadLimiter } from './limitReads.js'
import type { Reporter } from './terminal/Reporter.js'

export type CliTaskSpec = Omit<TaskSpec, 'trigger'>

export interface CliTaskOptions {
  /** `--limit-download`: bytes per second read from the storages, at most. */
  limitBytesPerSecond?: number
}

/** Runs `work` as a task; resolves with the exit code: 0 success, 1 failed, 130 cancelled by a signal. */
export async function runTask(reporter: Reporter, spec: CliTaskSpec, work: (context: TaskContext) => Promise<TaskOutcome>): Promise<number> {
  const history = memoryRunHistory()
  const runner = new TaskRunner({
    history,
    log: (_job, level, message) => reporter.message(level, message),
    onProgress: (_job, progress) => reporter.progress(progress),
  })
  runner.start({ ...spec, trigger: 'cli' }, work)
  void nextSignal().then((signal) => {
    if (!runner.busy(spec.job)) return
    reporter.message('warn', `${signal}: cancelling the ${spec.kind}`)
    runner.cancel(spec.job)
  })
  await runner.whenDone(spec.job)
  const record: RunRecord | undefined = history.list(spec.job, 1)[0]
  if (record) reporter.summary(record)
  reporter.close()
  return record?.result === 'success' ? 0 : record?.result === 'cancelled' ? 130 : 1
}

/** The `--limit-download` pace of one command (shared by every storage it reads), or none. */
export const readLimiterOf = (options: CliTaskOptions): ReadLimiter | undefined =>
  options.limitBytesPerSecond ? createReadLimiter(options.limitBytesPerSecond) : undefined

/** How a command's task reads a snapshot: the job's keys, stopped by a cancel (per chunk), every byte counted by the task's meter. */
export const taskReadOptions = (job: JobConfig, context: TaskContext): ReadOptions => ({
  ...archiveKeys(job),
  signal: context.signal,
  onBytes: (n) => context.meter.addBytes(n),
})
