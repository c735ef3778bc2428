/**
 * @module engine/createEngine
 * The `Engine` of `engine/types.ts`, wired from its parts: the jobs of the config (`jobRuntime`), the
 * recovery at start (`recoverAtStart`), the run lifecycle (`lifecycle/`), the croner schedules
 * (`scheduler`) and the job views (`jobViews`); state in `<dataDir>/state.json`, logs in the `LogHub`.
 * Restore and verify tasks are not the engine's: the composition root (`daemon/createDaemon`) builds
 * them beside it and ties the two through `busyElsewhere` / `DaemonEngine.busy`.
 */
import type { DaemonConfig } from '../config/types.js'
import { RunMetrics } from '../metrics/RunMetrics.js'
import { drillProvedSomething, type RunHistory, type RunRecord } from '../runs/history.js'
import { InFlightNotes } from '../runs/InFlightNotes.js'
import { RunWatchers, type RunListener } from '../runs/RunWatchers.js'
import type { RunProgress } from '../runs/progress.js'
import type { JobRepository } from '../repository/jobRepository.js'
import type { Storage } from '../storages/types.js'
import { createLogHub, type DaemonLogHub } from './createLogHub.js'
import { drillEnded } from './drillEnded.js'
import { FileRunHistory } from './history/FileRunHistory.js'
import { engineLog, jobRuntimes, runtimeLookup } from './jobRuntime.js'
import { jobViews } from './jobViews.js'
import { runLifecycle } from './lifecycle/runLifecycle.js'
import { recoverAtStart } from './recoverAtStart.js'
import { redactJob } from './redactJob.js'
import { RunLock } from './RunLock.js'
import { scheduleJobs } from './scheduler.js'
import { storageHealth } from './startupCleanup.js'
import { StateStore } from './StateStore.js'
import type { Engine, RunInfo } from './types.js'

export interface EngineOptions {
  /** Start the cron schedules (the CLI's `run` command turns them off). @default true */
  schedule?: boolean
  /** Keep logs in files under `logs.directory` (when the engine builds its own `logs`). @default true */
  persistLogs?: boolean
  /** The log hub, when the caller built it first (the composition root logs before the engine exists). @default createLogHub(config) */
  logs?: DaemonLogHub
  /** gzip level for `tar.gz` jobs. @default 6 */
  gzipLevel?: number
  /** Where runs, restores and verifies are recorded. @default `<dataDir>/history/<job>.json`, `history.limit` runs per job */
  history?: RunHistory
  /** Whether something else holds the job (a restore or verify task): a run is refused meanwhile. @default never */
  busyElsewhere?(job: string): boolean
  /** Stopped with the engine (the tasks), awaited with the runs in flight, before the logs close. */
  alsoStop?(): Promise<void>
  /** Wraps every storage as built (the CLI's `--limit-download`). */
  wrapStorage?(storage: Storage): Storage
}

/** The engine plus what the CLI and the composition root need beyond the server's contract. */
export interface DaemonEngine extends Engine {
  readonly logs: DaemonLogHub
  /** The job's snapshots over its storages, as built from the config. */
  repositoryOf(name: string): JobRepository
  /** A restore, verify or drill task ended (its history record): a drill goes into the metrics and to the notifiers (`drillEnded`). */
  taskEnded(record: RunRecord): void
  /** Whether the job's backup runs (from its start until it is idle again). Throws `JobNotFoundError`. */
  busy(name: string): boolean
  /** Resolves with the run's metadata once the job is idle again (at once if it is). */
  whenIdle(name: string): Promise<RunInfo>
  readonly history: RunHistory
  progress(name: string): RunProgress | undefined
  watchRuns(name: string, listener: RunListener): () => void
}

/**
 * @example
 * const engine = await createEngine(await loadConfig('backup-daemon.yaml'))
 * engine.run('nightly', 'manual')
 */
export async function createEngine(config: DaemonConfig, options: EngineOptions = {}): Promise<DaemonEngine> {
  const logs = options.logs ?? createLogHub(config, { persist: options.persistLogs ?? true })
  const log = engineLog(logs)
  const state = new StateStore(config.dataDir)
  const locks = new RunLock(config.dataDir)
  const historyWarn = (message: string) => log.system('warn', message)
  const history = options.history ?? new FileRunHistory({ dataDir: config.dataDir, limit: config.history?.limit, warn: historyWarn })
  const watchers = new RunWatchers()
  const health = storageHealth()
  const jobs = jobRuntimes(config, log, options.wrapStorage)
  const runtime = runtimeLookup(jobs)
  let stopped: Promise<void> | undefined

  recoverAtStart({ jobs, state, locks, health, log })
  // Runs and tasks that were killed (kill -9, a crash) get their record now, and count below.
  const notes = new InFlightNotes(config.dataDir)
  const interrupted = await notes.recover(history, (name, message) =>
    jobs.has(name) ? log.job(name)('warn', message) : log.system('warn', `[${name}] ${message}`),
  )
  const metrics = new RunMetrics(
    config.jobs.map(({ name }) => {
      const saved = state.get(name)
      const drilled = history.list(name).find(drillProvedSomething)
      return {
        name,
        lastSuccessAt: saved.lastResult.success && saved.run.endTime ? new Date(saved.run.endTime) : undefined,
        lastDrillSuccessAt: drilled ? new Date(drilled.endedAt) : undefined,
      }
    }),
  )
  for (const record of interrupted) {
    if (record.kind === 'backup') metrics.record({ job: record.job, status: 'failed', finishedAt: new Date(record.endedAt) })
    if (record.kind === 'drill') metrics.recordDrill({ job: record.job, status: 'failed', finishedAt: new Date(record.endedAt) })
  }
  const busyElsewhere = options.busyElsewhere ?? (() => false)
  const lifecycle = runLifecycle({
    logs,
    log,
    state,
    metrics,
    health,
    history,
    notes,
    watchers,
    gzipLevel: options.gzipLevel,
    jobs,
    runtime,
    locks,
    busyElsewhere,
  })
  const views = jobViews(jobs, state)
  if (options.schedule ?? true) scheduleJobs(jobs, lifecycle.run, log)
  log.system('info', `engine started: ${jobs.size} job(s), ${[...jobs.values()].filter((j) => j.cron).length} scheduled`)

  const stopEngine = async (): Promise<void> => {
    for (const job of jobs.values()) job.cron?.stop()
    const inFlight = lifecycle.stopRuns()
    await Promise.allSettled([...inFlight, ...[...jobs.values()].map((job) => job.swept), options.alsoStop?.()])
    log.system('info', 'engine stopped')
    logs.close()
  }

  return {
    logs,
    history,
    progress: (name) => runtime(name).tracker?.snapshot(),
    storagesDown: () => health.list(),
    watchRuns(name, listener) {
      runtime(name)
      return watchers.watch(name, listener)
    },
    repositoryOf: (name) => runtime(name).repository,
    busy: (name) => runtime(name).status !== 'idle',
    metrics: () => metrics.render(),
    taskEnded: (record) => {
      const job = jobs.get(record.job)
      if (job) void drillEnded(record, { metrics, notifiers: job.notifiers, log: log.job(record.job) })
    },
    listJobs: views.listJobs,
    getJob: (name) => views.getJob(runtime(name)),
    jobConfig: (name) => redactJob(runtime(name).config),
    runInfo: (name) => views.runInfo(runtime(name)),
    run: lifecycle.run,
    cancel: lifecycle.cancel,
    async listSnapshots(name) {
      const { snapshots, down } = await runtime(name).repository.listing()
      const failed = new Set(down.map((d) => d.storage))
      for (const { storage, error } of down) health.down(name, storage, `listing failed: ${error}`)
      for (const repository of runtime(name).repository.repositories) if (!failed.has(repository.name)) health.up(name, repository.name)
      return snapshots.map((snapshot) => snapshot.view)
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
}
