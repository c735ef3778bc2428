/**
 * @module tasks/TaskRunner
 * Runs restore and verify tasks in the background, one per job at a time: each gets an AbortSignal
 * (cancel), a `ProgressMeter` (RunProgress about 4 times a second), log lines in the job's log
 * prefixed `[restore]`/`[verify]`, and ends as a `RunRecord` appended to the `RunHistory`. The newest
 * task of each job is kept (running or ended) so clients can read how it ended, and can be followed
 * live (`follow`: the task stream of the API) until its record is written.
 */
import type { RunHistory, RunRecord } from '../runs/history.js'
import type { InFlightNotes } from '../runs/InFlightNotes.js'
import { runRecordId } from '../runs/runRecordId.js'
import { RunWatchers, type RunListener } from '../runs/RunWatchers.js'
import type { RunProgress } from '../runs/progress.js'
import type { LogLevel } from '../logs/formatLine.js'
import { formatDuration } from '../engine/formatDuration.js'
import { ProgressMeter } from './ProgressMeter.js'
import { TaskRefusedError } from './TaskRefusedError.js'
import type { TaskKind, TaskView } from './TaskView.js'

export interface TaskRunnerOptions {
  history: RunHistory
  /** A line for the job's log (already prefixed with the task kind). */
  log(job: string, level: LogLevel, message: string): void
  /** The task's start and its success, one line each, for the daemon's own log (a failure's line there is the job log's error, copied). @default none */
  announce?(job: string, level: LogLevel, message: string): void
  /** Each progress snapshot of a running task (for live streams). */
  onProgress?(job: string, progress: RunProgress): void
  /** A task ended: its record, once it is in the history (the composition root feeds the metrics). */
  onEnded?(record: RunRecord): void
  /** Progress timer period. @default 250 */
  progressIntervalMs?: number
  /** Where a task in flight is noted, so a killed one is recorded at the next start. @default none */
  notes?: InFlightNotes
}

export interface TaskSpec {
  job: string
  kind: TaskKind
  snapshot: string
  target?: string
  totalBytes?: number
  /** Files the task counts as it goes (`meter.file`), where known: its progress weighs them too. */
  totalFiles?: number
  trigger: RunRecord['trigger']
}

export interface TaskContext {
  /** The task's id (its record's). */
  id: string
  signal: AbortSignal
  meter: ProgressMeter
  log(level: LogLevel, message: string): void
}

/** What a task reports when it succeeds. */
export interface TaskOutcome {
  summary: string
  bytesWritten?: number
  /** A drill: the copies that could not be proven (nothing to compare with), each with why. */
  notProven?: string[]
}

/** Raised inside a task when it is cancelled; its message becomes the task's `error`. */
class TaskCancelled extends Error {
  override name = 'TaskCancelled'
}

interface Task {
  view: TaskView
  controller: AbortController
  meter: ProgressMeter
  done: Promise<void>
  /** Set once the task has ended and its record is in the history. */
  record?: RunRecord
  /** Removes the task's in-flight note. */
  noted(): void
}

export class TaskRunner {
  private readonly tasks = new Map<string, Task>()
  private readonly watchers = new RunWatchers()

  constructor(private readonly options: TaskRunnerOptions) {}

  /** Whether a task of `job` is running (or being cancelled). */
  busy(job: string): boolean {
    const status = this.tasks.get(job)?.view.status
    return status === 'running' || status === 'cancelling'
  }

  /** Starts `work` in the background; 409 `TaskRefusedError` when a task of the job runs. */
  start(spec: TaskSpec, work: (context: TaskContext) => Promise<TaskOutcome>): TaskView {
    if (this.busy(spec.job)) {
      const running = this.tasks.get(spec.job)!.view.kind
      throw new TaskRefusedError(409, `job "${spec.job}" already has a ${running} task running; wait for it or cancel it`)
    }
    const started = new Date()
    const controller = new AbortController()
    const meter = new ProgressMeter({
      kind: spec.kind,
      startedAt: started,
      ...(spec.totalBytes !== undefined && { totalBytes: spec.totalBytes }),
      ...(spec.totalFiles !== undefined && { totalFiles: spec.totalFiles }),
      ...(this.options.progressIntervalMs !== undefined && { intervalMs: this.options.progressIntervalMs }),
      onProgress: (progress) => {
        task.view.progress = progress
        this.options.onProgress?.(spec.job, progress)
        this.watchers.progress(spec.job, progress)
      },
    })
    const view: TaskView = {
      // The history's one id form (start time first), so tasks and backups sort together by start.
      id: runRecordId(started),
      job: spec.job,
      kind: spec.kind,
      snapshot: spec.snapshot,
      ...(spec.target !== undefined && { target: spec.target }),
      status: 'running',
      progress: meter.progress,
      startedAt: started.toISOString(),
    }
    const log = (level: LogLevel, message: string) => this.options.log(spec.job, level, `[${spec.kind}] ${message}`)
    const noted =
      this.options.notes?.begin({
        id: view.id,
        job: spec.job,
        kind: spec.kind,
        trigger: spec.trigger,
        startedAt: view.startedAt,
        snapshot: spec.snapshot,
        ...(spec.target !== undefined && { target: spec.target }),
      }) ?? (() => {})
    const task: Task = { view, controller, meter, done: Promise.resolve(), noted }
    this.tasks.set(spec.job, task)
    task.done = this.execute(spec, task, work, log)
    return { ...view }
  }

  /** The newest task of the job (running or ended), or undefined before the first. */
  current(job: string): TaskView | undefined {
    const task = this.tasks.get(job)
    return task && { ...task.view }
  }

  /**
   * Follows the job's newest task: `listener` gets its latest progress at once and every snapshot after,
   * then `end` with its history record; a task that has already ended gets `end` at once. Returns the
   * function that stops following, or undefined when the job has had no task.
   */
  follow(job: string, listener: RunListener): (() => void) | undefined {
    const task = this.tasks.get(job)
    if (!task) return undefined
    if (task.record) {
      listener.end(task.record)
      return () => {}
    }
    const unwatch = this.watchers.watch(job, listener)
    if (task.view.progress) listener.progress(task.view.progress)
    return unwatch
  }

  /** Cancels the running task; 409 when none runs. */
  cancel(job: string): TaskView {
    const task = this.tasks.get(job)
    if (!task || !this.busy(job)) throw new TaskRefusedError(409, `job "${job}" has no restore or verify task running`)
    if (task.view.status === 'running') {
      task.view.status = 'cancelling'
      this.options.log(job, 'warn', `[${task.view.kind}] cancel requested`)
      task.controller.abort(new TaskCancelled('cancelled'))
    }
    return { ...task.view }
  }

  /** Resolves when the job's task (if any) has ended. */
  async whenDone(job: string): Promise<void> {
    await this.tasks.get(job)?.done
  }

  /** Cancels every running task and waits for them to clean up. */
  async stop(reason = 'cancelled: the daemon is shutting down'): Promise<void> {
    const running = [...this.tasks.values()].filter((task) => this.busy(task.view.job))
    for (const task of running) {
      task.view.status = 'cancelling'
      task.controller.abort(new TaskCancelled(reason))
    }
    await Promise.allSettled(running.map((task) => task.done))
  }

  private async execute(spec: TaskSpec, task: Task, work: (context: TaskContext) => Promise<TaskOutcome>, log: TaskContext['log']): Promise<void> {
    const { view, controller, meter } = task
    const what = `${spec.kind} of ${spec.snapshot}${spec.target ? ` into ${spec.target}` : ''}`
    log('info', `started: ${what}`)
    this.options.announce?.(spec.job, 'info', `${spec.kind} started (${spec.trigger}): ${what}`)
    let outcome: TaskOutcome | undefined
    let error: string | undefined
    try {
      outcome = await work({ id: view.id, signal: controller.signal, meter, log })
    } catch (err) {
      const reason: unknown = controller.signal.aborted ? controller.signal.reason : err
      error = reason instanceof Error ? reason.message : String(reason)
    }
    // A cancel that came after the work finished (e.g. during a restore's final renames) changes nothing: success.
    const result: RunRecord['result'] = error === undefined ? 'success' : controller.signal.aborted ? 'cancelled' : 'failed'
    if (result === 'cancelled' && error === undefined) error = 'cancelled'
    meter.phase = 'finishing'
    view.progress = meter.stop(result === 'success')
    const ended = new Date()
    view.status = result
    view.endedAt = ended.toISOString()
    if (error !== undefined) view.error = error
    if (outcome) view.summary = outcome.summary
    const took = formatDuration(ended.getTime() - new Date(view.startedAt).getTime())
    if (result === 'success') {
      log('info', `succeeded: ${outcome!.summary}`)
      this.options.announce?.(spec.job, 'info', `${spec.kind} succeeded in ${took}: ${outcome!.summary}`)
    } else log(result === 'cancelled' ? 'warn' : 'error', `${result}: ${error}`)
    const record: RunRecord = {
      id: view.id,
      job: spec.job,
      kind: spec.kind,
      trigger: spec.trigger,
      startedAt: view.startedAt,
      endedAt: view.endedAt,
      durationMs: ended.getTime() - new Date(view.startedAt).getTime(),
      result,
      bytesRead: meter.bytesRead,
      bytesWritten: outcome?.bytesWritten ?? 0,
      filesRead: meter.filesRead,
      snapshot: spec.snapshot,
      ...(spec.target !== undefined && { target: spec.target }),
      ...(error !== undefined && { error }),
      ...(outcome?.summary && { summary: outcome.summary }),
      ...(outcome?.notProven && { notProven: outcome.notProven }),
    }
    await this.options.history.append(record).catch((err: Error) => log('warn', `could not record the task in the history: ${err.message}`))
    task.noted()
    task.record = record
    this.options.onEnded?.(record)
    this.watchers.end(spec.job, record)
  }
}
