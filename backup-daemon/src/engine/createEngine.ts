/**
 * @module engine/createEngine
 * The `Engine` of `engine/types.ts`: jobs from the config, croner schedules, runs in the background
 * with cancel through one AbortSignal, state in `<dataDir>/state.json`, logs in the `LogHub`.
 */
import { Cron } from 'croner'
import { hostname } from 'node:os'
import type { Manifest } from '../archive/manifest.js'
import type { DaemonConfig, JobConfig } from '../config/types.js'
import { createLogHub, type DaemonLogHub } from '../logs/createLogHub.js'
import type { LogLevel } from '../logs/formatLine.js'
import { RunMetrics } from '../metrics/RunMetrics.js'
import { createNotifiers, notifyAll } from '../notify/createNotifiers.js'
import type { Notifier, RunReport } from '../notify/types.js'
import { createJobStorage } from '../archive/jobStorage.js'
import type { Storage } from '../storages/types.js'
import { EngineStoppingError, JobBusyError, JobNotFoundError, NoRunInFlightError } from './errors.js'
import { formatDuration } from './formatDuration.js'
import { openSnapshot } from './openSnapshot.js'
import { redactJob } from './redactJob.js'
import { RunLock } from './RunLock.js'
import { runJob } from './runJob.js'
import { defaultStorageOf, listJobSnapshots, removeLeftovers } from './snapshotCatalog.js'
import { StateStore } from './StateStore.js'
import { createJobTasks, type JobTasks } from '../tasks/createJobTasks.js'
import { memoryRunHistory } from '../tasks/memoryRunHistory.js'
import { TaskRunner } from '../tasks/TaskRunner.js'
import type { RunHistory } from './history/types.js'
import type { Engine, JobRunStatus, JobView, RunInfo } from './types.js'

export interface EngineOptions {
  /** Start the cron schedules (the CLI's `run` command turns them off). @default true */
  schedule?: boolean
  /** Keep logs in files under `logs.directory`. @default true */
  persistLogs?: boolean
  /** gzip level for `tar.gz` jobs. @default 6 */
  gzipLevel?: number
  /** Where restore and verify tasks are recorded. @default an in-memory history */
  history?: RunHistory
}

/** The engine plus what the CLI needs beyond the server's contract. */
export interface DaemonEngine extends Engine {
  readonly logs: DaemonLogHub
  /** The job's storages, as built from the config (the CLI's verify and restore read through them). */
  storagesOf(name: string): Storage[]
  /** Resolves with the run's metadata once the job is idle again (at once if it is). */
  whenIdle(name: string): Promise<RunInfo>
  readonly tasks: JobTasks
}

/** Raised inside a run when it is cancelled; its message becomes the run's `error`. */
class RunCancelled extends Error {
  override name = 'RunCancelled'
}

interface JobRuntime {
  config: JobConfig
  storages: Storage[]
  notifiers: Notifier[]
  status: JobRunStatus
  controller?: AbortController
  done?: Promise<void>
  cron?: Cron
  /** croner's next fire time, kept until it passes (computing it costs tens of µs per job and request). */
  nextRun?: { at: number; iso: string }
}

/**
 * @example
 * const engine = await createEngine(await loadConfig('backup-daemon.yaml'))
 * engine.run('nightly', 'manual')
 */
export async function createEngine(config: DaemonConfig, options: EngineOptions = {}): Promise<DaemonEngine> {
  const logs = createLogHub(config, { persist: options.persistLogs ?? true })
  const state = new StateStore(config.dataDir)
  const locks = new RunLock(config.dataDir)
  let stopping = false
  let stopped: Promise<void> | undefined

  const systemLog = (level: LogLevel, message: string) => logs.log({ kind: 'system' }, level, message)
  const jobLog = (name: string) => (level: LogLevel, message: string) => {
    logs.log({ kind: 'job', job: name }, level, message)
    if (level !== 'info') systemLog(level, `[${name}] ${message}`)
  }
  // Storages log to their job's log (e.g. sftp's host-key warnings).
  const jobs = new Map<string, JobRuntime>(
    config.jobs.map((job) => [
      job.name,
      { config: job, storages: job.storages.map((entry) => createJobStorage(entry, { log: jobLog(job.name) })), notifiers: createNotifiers(job.notify), status: 'idle' },
    ]),
  )
  const runtime = (name: string) => {
    const job = jobs.get(name)
    if (!job) throw new JobNotFoundError(name)
    return job
  }

  // A run that was in flight when the previous process died is over: record it as failed and clean up.
  for (const [name, job] of jobs) {
    if (locks.heldElsewhere(name) !== undefined) continue
    const previous = state.get(name)
    if (previous.run.status === 'running' || previous.run.status === 'cancelling') {
      const error = 'interrupted: the daemon stopped during the run'
      state.update(name, { lastResult: { success: false, duration: previous.run.duration, error }, run: { status: 'failed', error } })
      jobLog(name)('warn', `the previous run did not finish (${error})`)
    }
    for (const storage of job.storages) {
      const removed = await removeLeftovers(storage, name).catch((err: Error) => {
        jobLog(name)('warn', `storage "${storage.name}": cleaning leftovers failed: ${err.message}`)
        return 0
      })
      if (removed) jobLog(name)('warn', `storage "${storage.name}": removed ${removed} object(s) left by an unfinished run`)
    }
  }

  const metrics = new RunMetrics(
    config.jobs.map(({ name }) => {
      const saved = state.get(name)
      return { name, lastSuccessAt: saved.lastResult.success && saved.run.endTime ? new Date(saved.run.endTime) : undefined }
    }),
  )

  const execute = async (name: string, job: JobRuntime, controller: AbortController, started: Date, trigger: string) => {
    const log = jobLog(name)
    log('info', `run started (${trigger})`)
    systemLog('info', `[${name}] run started (${trigger})`)
    let error = ''
    let status: 'success' | 'failed' | 'cancelled' = 'success'
    let manifest: Manifest | undefined
    try {
      manifest = await runJob({ job: job.config, storages: job.storages, signal: controller.signal, log, level: options.gzipLevel })
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
          ? { name: manifest.name, size: manifest.size, sha256: manifest.sha256, parts: manifest.parts.length, storages: job.storages.map((s) => s.name) }
          : null,
        host: hostname(),
      }
      await notifyAll(job.notifiers, report, log)
    }
  }

  // Restore and verify tasks; a backup and a task of the same job never run together.
  const tasks = createJobTasks({
    config,
    job: (name) => runtime(name),
    backupRunning: (name) => runtime(name).status !== 'idle',
    runner: new TaskRunner({ history: options.history ?? memoryRunHistory(), log: (name, level, message) => jobLog(name)(level, message) }),
  })

  const run = (name: string, trigger: 'manual' | 'schedule'): { startedAt: string } => {
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
    job.done = execute(name, job, controller, started, trigger).finally(() => {
      job.status = 'idle'
      job.controller = undefined
      locks.release(name)
    })
    return { startedAt: started.toISOString() }
  }

  const nextRun = (job: JobRuntime): string => {
    if (!job.cron) return ''
    const now = Date.now()
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
    }
  }

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
    tasks,
    storagesOf: (name) => runtime(name).storages,
    metrics: () => metrics.render(),
    listJobs: () => {
      state.refresh()
      return [...jobs.values()].map((job) => view(job, false))
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
      const job = runtime(name)
      return (await listJobSnapshots(name, job.storages, defaultStorageOf(job.config))).map(({ entry }) => entry.view)
    },
    openSnapshot: (name, filename) => openSnapshot(name, runtime(name).storages, filename, defaultStorageOf(runtime(name).config)),
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
    await Promise.allSettled([...inFlight.map((job) => job.done), tasks.stop()])
    systemLog('info', 'engine stopped')
    logs.close()
  }
}
