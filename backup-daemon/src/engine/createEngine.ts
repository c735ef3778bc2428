/**
 * @module engine/createEngine
 * The `Engine` of `engine/types.ts`: jobs from the config, croner schedules, runs in the background
 * with cancel through one AbortSignal, state in `<dataDir>/state.json`, logs in the `LogHub`.
 */
import { Cron } from 'croner'
import { hostname } from 'node:os'
import type { WrittenSnapshot } from '../repository/types.js'
import type { DaemonConfig, JobConfig } from '../config/types.js'
import { createLogHub, type DaemonLogHub } from './createLogHub.js'
import type { LogLevel } from '../logs/formatLine.js'
import { RunMetrics } from '../metrics/RunMetrics.js'
import { createNotifiers, notifyAll, notifyStarted } from '../notify/createNotifiers.js'
import type { Notifier, RunReport } from '../notify/types.js'
import { openJobRepository, type JobRepository } from '../repository/jobRepository.js'
import { EngineStoppingError, JobBusyError, JobNotFoundError, NoRunInFlightError } from '../runs/errors.js'
import { formatDuration } from './formatDuration.js'
import { FileRunHistory } from './history/FileRunHistory.js'
import { runRecordId } from './history/runRecordId.js'
import type { RunHistory, RunRecord } from '../runs/history.js'
import { countLocalTrees } from './progress/countLocalTrees.js'
import { ProgressTracker } from './progress/ProgressTracker.js'
import { RunWatchers, type RunListener } from '../runs/RunWatchers.js'
import type { RunProgress } from '../runs/progress.js'
import { redactJob } from './redactJob.js'
import { RunLock } from './RunLock.js'
import { runJob } from './runJob.js'
import { storageHealth, sweepLeftovers } from './startupCleanup.js'
import { StateStore, type JobState } from './StateStore.js'
import { createJobTasks, type JobTasks } from '../tasks/createJobTasks.js'
import { recoverRestores } from '../tasks/restoreJournal.js'
import { TaskRunner } from '../tasks/TaskRunner.js'
import type { Engine, JobRunStatus, JobView, RunInfo } from './types.js'

export interface EngineOptions {
  /** Start the cron schedules (the CLI's `run` command turns them off). @default true */
  schedule?: boolean
  /** Keep logs in files under `logs.directory`. @default true */
  persistLogs?: boolean
  /** gzip level for `tar.gz` jobs. @default 6 */
  gzipLevel?: number
  /** Where runs, restores and verifies are recorded. @default `<dataDir>/history/<job>.json`, `history.limit` runs per job */
  history?: RunHistory
}

/** The engine plus what the CLI needs beyond the server's contract. */
export interface DaemonEngine extends Engine {
  readonly logs: DaemonLogHub
  /** The job's snapshots over its storages, as built from the config. */
  repositoryOf(name: string): JobRepository
  /** Resolves with the run's metadata once the job is idle again (at once if it is). */
  whenIdle(name: string): Promise<RunInfo>
  readonly history: RunHistory
  progress(name: string): RunProgress | undefined
  watchRuns(name: string, listener: RunListener): () => void
  readonly tasks: JobTasks
}

/** Raised inside a run when it is cancelled; its message becomes the run's `error`. */
class RunCancelled extends Error {
  override name = 'RunCancelled'
}

interface JobRuntime {
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
  /** The job's last view and what it was built from, reused while none of it changes (see `listJobs`). */
  shown?: ShownView
}

/** A frozen `JobView` with the inputs it was built from; a view with `progress` is never kept (it moves on every call). */
interface ShownView {
  view: JobView
  status: JobRunStatus
  saved: ShownState
  next: string
}

/** What a `JobView` shows of the saved state, copied (a stored reference would follow any change made in place). */
type ShownState = [lastRun: string, success: boolean, duration: string | undefined, error: string | undefined]
const shownState = ({ lastRun, lastResult }: JobState): ShownState => [lastRun, lastResult.success, lastResult.duration, lastResult.error]
const sameState = (a: ShownState, { lastRun, lastResult }: JobState): boolean =>
  a[0] === lastRun && a[1] === lastResult.success && a[2] === lastResult.duration && a[3] === lastResult.error

/**
 * @example
 * const engine = await createEngine(await loadConfig('backup-daemon.yaml'))
 * engine.run('nightly', 'manual')
 */
export async function createEngine(config: DaemonConfig, options: EngineOptions = {}): Promise<DaemonEngine> {
  const logs = createLogHub(config, { persist: options.persistLogs ?? true })
  const state = new StateStore(config.dataDir)
  const locks = new RunLock(config.dataDir)
  const historyWarn = (message: string) => logs.log({ kind: 'system' }, 'warn', message)
  const history = options.history ?? new FileRunHistory({ dataDir: config.dataDir, limit: config.history?.limit, warn: historyWarn })
  const watchers = new RunWatchers()
  let stopping = false
  let stopped: Promise<void> | undefined
  const health = storageHealth()

  const systemLog = (level: LogLevel, message: string) => logs.log({ kind: 'system' }, level, message)
  const jobLog = (name: string) => (level: LogLevel, message: string) => {
    logs.log({ kind: 'job', job: name }, level, message)
    if (level !== 'info') systemLog(level, `[${name}] ${message}`)
  }
  // Storages log to their job's log (e.g. sftp's host-key warnings).
  const jobs = new Map<string, JobRuntime>(
    config.jobs.map((job) => [
      job.name,
      {
        config: job,
        repository: openJobRepository(job, { context: { log: jobLog(job.name) } }),
        notifiers: createNotifiers(job.notify),
        status: 'idle',
      },
    ]),
  )
  const runtime = (name: string) => {
    const job = jobs.get(name)
    if (!job) throw new JobNotFoundError(name)
    return job
  }

  // A file restore killed mid-way: its temporary folder removed, a merge completed, the task recorded.
  await recoverRestores(config.dataDir, history, (job, level, message) => {
    if (jobs.has(job)) jobLog(job)(level, message)
    else systemLog(level, `[${job}] ${message}`)
  })
  // A run that was in flight when the previous process died is over: record it as failed and clean up.
  for (const [name, job] of jobs) {
    if (locks.heldElsewhere(name) !== undefined) continue
    const previous = state.get(name)
    if (previous.run.status === 'running' || previous.run.status === 'cancelling') {
      const error = 'interrupted: the daemon stopped during the run'
      state.update(name, { lastResult: { success: false, duration: previous.run.duration, error }, run: { status: 'failed', error } })
      jobLog(name)('warn', `the previous run did not finish (${error})`)
    }
    // In the background: an unreachable storage must not delay serving (engine/startupCleanup).
    job.swept = sweepLeftovers(job.repository, jobLog(name), health)
  }

  const metrics = new RunMetrics(
    config.jobs.map(({ name }) => {
      const saved = state.get(name)
      return { name, lastSuccessAt: saved.lastResult.success && saved.run.endTime ? new Date(saved.run.endTime) : undefined }
    }),
  )

  type Trigger = RunRecord['trigger']
  const execute = async (name: string, job: JobRuntime, controller: AbortController, started: Date, trigger: Trigger, tracker: ProgressTracker) => {
    const log = jobLog(name)
    // The run's own lines for notifiers that send them (healthchecks); subscribed, so kept even when `logs.perJob` is off.
    const runLines: string[] = []
    const unsubscribe = job.notifiers.length
      ? logs.subscribe({ kind: 'job', job: name }, (line) => {
          if (runLines.push(line) > 500) runLines.shift()
        })
      : undefined
    log('info', `run started (${trigger})`)
    systemLog('info', `[${name}] run started (${trigger})`)
    // Not awaited before the backup (an unreachable endpoint must not delay it), only before the final notifications.
    const startPings = notifyStarted(job.notifiers, name, log)
    let error = ''
    let status: 'success' | 'failed' | 'cancelled' = 'success'
    let manifest: WrittenSnapshot | undefined
    try {
      await job.swept
      manifest = await runJob({ job: job.config, repository: job.repository, signal: controller.signal, log, level: options.gzipLevel, tracker })
    } catch (err) {
      const reason = controller.signal.aborted ? controller.signal.reason : err
      error = reason instanceof Error ? reason.message : String(reason)
      status = controller.signal.aborted ? 'cancelled' : 'failed'
    }
    const finished = new Date()
    const elapsed = finished.getTime() - started.getTime()
    const duration = formatDuration(elapsed)
    state.update(name, {
      lastResult: { success: status === 'success', duration, error },
      run: { endTime: finished.toISOString(), duration, error, status },
    })
    metrics.record({ job: name, status, durationSeconds: elapsed / 1000, size: manifest?.size, finishedAt: finished })
    if (status === 'success') health.upAll(name)
    tracker.stop()
    const record: RunRecord = {
      id: runRecordId(started),
      job: name,
      kind: 'backup',
      trigger,
      startedAt: started.toISOString(),
      endedAt: finished.toISOString(),
      durationMs: elapsed,
      result: status,
      bytesRead: tracker.bytesRead(),
      bytesWritten: manifest?.size ?? tracker.written.bytesWritten,
      filesRead: tracker.files,
      ...(manifest && { snapshot: manifest.name }),
      ...(error && { error }),
    }
    await history.append(record).catch((err: Error) => log('warn', `run history not saved: ${err.message}`))
    watchers.end(name, record)
    if (status === 'success') log('info', `run succeeded in ${duration}`)
    else log(status === 'cancelled' ? 'warn' : 'error', `run ${status} after ${duration}: ${error}`)
    if (status === 'success') systemLog('info', `[${name}] run succeeded in ${duration}`)
    if (job.notifiers.length > 0) {
      const report: RunReport = {
        job: name,
        status: status === 'failed' ? 'failure' : status,
        startedAt: started.toISOString(),
        finishedAt: finished.toISOString(),
        duration,
        durationSeconds: elapsed / 1000,
        error,
        snapshot: manifest
          ? {
              name: manifest.name,
              size: manifest.size,
              sha256: manifest.sha256,
              parts: manifest.partsCount,
              storages: job.repository.repositories.map((r) => r.name),
            }
          : null,
        host: hostname(),
      }
      await startPings
      unsubscribe?.()
      await notifyAll(job.notifiers, report, log, { logLines: runLines })
    }
  }

  /** A tracker for a run starting now; the total comes from the previous good run, else from counting local trees. */
  const trackerFor = (name: string, job: JobRuntime, started: Date, counting: AbortSignal): ProgressTracker => {
    const previous = history.list(name).find((r) => r.kind === 'backup' && r.result === 'success' && r.bytesRead > 0)
    const tracker = new ProgressTracker({
      kind: 'backup',
      startedAt: started,
      storages: job.repository.repositories.map((r) => r.name),
      totalBytes: previous?.bytesRead,
      onTick: (progress) => watchers.progress(name, progress),
    }).start()
    const trees = job.config.sources.flatMap((s) => (s.type === 'local' ? [{ path: s.path, exclude: s.exclude }] : []))
    if (!previous && trees.length === job.config.sources.length && trees.length > 0) {
      countLocalTrees(trees, counting).then(
        (total) => (tracker.totalBytes = total),
        () => {},
      )
    }
    return tracker
  }

  // Restore and verify tasks; a backup and a task of the same job never run together.
  const tasks = createJobTasks({
    config,
    job: (name) => runtime(name),
    backupRunning: (name) => runtime(name).status !== 'idle',
    runner: new TaskRunner({ history, log: (name, level, message) => jobLog(name)(level, message) }),
  })

  const run = (name: string, trigger: RunRecord['trigger']): { startedAt: string } => {
    if (stopping) throw new EngineStoppingError()
    const job = runtime(name)
    if (job.status !== 'idle' || tasks.busy(name) || !locks.acquire(name)) throw new JobBusyError(name)
    const started = new Date()
    const controller = new AbortController()
    job.status = 'running'
    job.controller = controller
    state.update(name, {
      lastRun: started.toISOString(),
      run: { startTime: started.toISOString(), endTime: '', duration: '', error: '', status: 'running' },
    })
    // The count of local trees stops with the run (a run of a huge tree may end first).
    const counting = new AbortController()
    const tracker = (job.tracker = trackerFor(name, job, started, counting.signal))
    job.done = execute(name, job, controller, started, trigger, tracker).finally(() => {
      counting.abort()
      tracker.stop()
      job.status = 'idle'
      job.controller = undefined
      job.tracker = undefined
      locks.release(name)
    })
    return { startedAt: started.toISOString() }
  }

  const nextRun = (job: JobRuntime, now = Date.now()): string => {
    if (!job.cron) return ''
    if (!job.nextRun || job.nextRun.at <= now) {
      const next = job.cron.nextRun()
      job.nextRun = { at: next ? next.getTime() : Infinity, iso: next?.toISOString() ?? '' }
    }
    return job.nextRun.iso
  }
  /** `refresh: false` when the caller already refreshed the state for a batch of jobs. */
  const view = (job: JobRuntime, refresh = true): JobView => {
    if (refresh) state.refresh()
    const saved = state.cached(job.config.name)
    const { success, duration, error } = saved.lastResult
    const next = nextRun(job)
    // Empty optional fields are left out (the original's shape): no lastResult before a run has ended.
    const ended = success || Boolean(duration) || Boolean(error)
    return {
      name: job.config.name,
      active: job.config.active,
      schedule: job.config.schedule,
      sourcesCount: job.config.sources.length,
      storagesCount: job.config.storages.length,
      status: job.status === 'idle' ? 'idle' : 'running',
      ...(job.status === 'cancelling' ? { cancelling: true as const } : {}),
      ...(ended ? { lastResult: { success, ...(duration ? { duration } : {}), ...(error ? { error } : {}) } } : {}),
      ...(saved.lastRun ? { lastRun: saved.lastRun } : {}),
      ...(next ? { nextRun: next } : {}),
      ...(job.tracker ? { progress: job.tracker.snapshot() } : {}),
    }
  }

  /**
   * The job's view, the very same frozen object as last time while its inputs are unchanged: `GET /jobs`
   * is polled, and the server serialises a list only when its identity changes. A running job (live
   * progress) gets a new view on every call. The saved state is compared by value, since `StateStore`
   * hands out a new empty entry on every call for a job that never ran.
   */
  const shownView = (job: JobRuntime, now: number): JobView => {
    if (job.tracker) {
      job.shown = undefined
      return view(job, false)
    }
    const saved = state.cached(job.config.name)
    const next = nextRun(job, now)
    const shown = job.shown
    if (shown && shown.status === job.status && shown.next === next && sameState(shown.saved, saved)) return shown.view
    const fresh = view(job, false)
    if (fresh.lastResult) Object.freeze(fresh.lastResult)
    job.shown = { view: Object.freeze(fresh), status: job.status, saved: shownState(saved), next }
    return fresh
  }
  let listed = Object.freeze([] as JobView[]) as JobView[]

  if (options.schedule ?? true) {
    for (const [name, job] of jobs) {
      if (!job.config.active || !job.config.schedule) continue
      // `protect` keeps croner from firing again while the callback's run is still going.
      job.cron = new Cron(job.config.schedule, { timezone: job.config.timezone, protect: true, catch: true, name: `backup:${name}` }, async () => {
        try {
          run(name, 'schedule')
          await job.done
        } catch (err) {
          if (err instanceof JobBusyError) jobLog(name)('warn', 'scheduled run skipped: the job is already running')
          else if (!(err instanceof EngineStoppingError)) jobLog(name)('error', `scheduled run failed to start: ${(err as Error).message}`)
        }
      })
    }
  }
  systemLog('info', `engine started: ${jobs.size} job(s), ${[...jobs.values()].filter((j) => j.cron).length} scheduled`)

  return {
    logs,
    history,
    progress: (name) => runtime(name).tracker?.snapshot(),
    storagesDown: () => health.list(),
    watchRuns(name, listener) {
      runtime(name)
      return watchers.watch(name, listener)
    },
    tasks,
    repositoryOf: (name) => runtime(name).repository,
    metrics: () => metrics.render(),
    listJobs: () => {
      state.refresh()
      // The same frozen array while no job's view changed (no new array), a new one otherwise.
      const now = Date.now()
      let i = 0
      let views: JobView[] | undefined = listed.length === jobs.size ? undefined : []
      for (const job of jobs.values()) {
        const shown = shownView(job, now)
        if (!views && shown !== listed[i]) views = listed.slice(0, i)
        views?.push(shown)
        i++
      }
      if (views) listed = Object.freeze(views) as JobView[]
      return listed
    },
    getJob: (name) => view(runtime(name)),
    jobConfig: (name) => redactJob(runtime(name).config),
    runInfo(name) {
      const job = runtime(name)
      const info = state.get(name).run
      return job.status === 'idle' ? info : { ...info, status: job.status }
    },
    run,
    cancel(name) {
      const job = runtime(name)
      if (job.status === 'idle' || !job.controller) throw new NoRunInFlightError(name)
      if (job.status === 'running') {
        job.status = 'cancelling'
        state.update(name, { run: { status: 'cancelling' } })
        jobLog(name)('warn', 'cancel requested')
        job.controller.abort(new RunCancelled('cancelled'))
      }
      return { cancelledAt: new Date().toISOString() }
    },
    async listSnapshots(name) {
      return (await runtime(name).repository.list()).map((snapshot) => snapshot.view)
    },
    openSnapshot: (name, filename) => runtime(name).repository.download(filename),
    async whenIdle(name) {
      await runtime(name).done
      return state.get(name).run
    },
    stop() {
      stopped ??= stopEngine()
      return stopped
    },
  }

  async function stopEngine(): Promise<void> {
    stopping = true
    for (const job of jobs.values()) job.cron?.stop()
    const inFlight = [...jobs.values()].filter((job) => job.status !== 'idle')
    for (const job of inFlight) {
      job.status = 'cancelling'
      job.controller?.abort(new RunCancelled('cancelled: the daemon is shutting down'))
    }
    await Promise.allSettled([...inFlight.map((job) => job.done), ...[...jobs.values()].map((job) => job.swept), tasks.stop()])
    systemLog('info', 'engine stopped')
    logs.close()
  }
}
