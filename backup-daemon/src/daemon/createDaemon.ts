/**
 * @module daemon/createDaemon
 * The composition root: the one place that wires the daemon's parts together from a loaded config. It
 * sits above the engine, the tasks and the server and below the CLI, so none of those needs to know the
 * others: the engine runs backups, the tasks restore and verify, and two small callbacks keep "a backup
 * and a task of the same job never run together" (the engine asks the task runner before a run, the
 * tasks ask `engine.busy` before a task). Both write to one log hub and one run history, built here first so
 * that a restore killed mid-way is recovered (`tasks/restoreJournal`) before anything runs.
 *
 * @example
 * const daemon = await createDaemon(await loadConfig('backup-daemon.yaml'))
 * const server = await startServer({ config: daemon.config, engine: daemon.engine, tasks: daemon.tasks })
 * await server.close()
 * await daemon.stop()
 */
import type { DaemonConfig, JobConfig } from '../config/types.js'
import type { LogLevel } from '../logs/formatLine.js'
import { createEngine, type DaemonEngine, type EngineOptions } from '../engine/createEngine.js'
import { createLogHub } from '../engine/createLogHub.js'
import { FileRunHistory } from '../engine/history/FileRunHistory.js'
import { engineLog } from '../engine/jobRuntime.js'
import { createJobTasks, type JobTasks } from '../tasks/createJobTasks.js'
import { sweepDrillScratch } from '../restore/drill/drillScratch.js'
import { sweptAtStart } from './privateTempFolder.js'
import { scheduleDrills } from './drillSchedule.js'
import { recoverRestores } from '../tasks/restoreJournal.js'
import { InFlightNotes } from '../runs/InFlightNotes.js'
import { TaskRunner } from '../tasks/TaskRunner.js'

/** The engine's options the caller chooses; the tie to the tasks is the root's own. */
export interface DaemonOptions extends Omit<EngineOptions, 'logs' | 'busyElsewhere' | 'alsoStop'> {
  /** Every line a task logs, also told here (the CLI prints its task's lines as they come). */
  onTaskLog?(job: string, level: LogLevel, message: string): void
  /** Every line of the system log from the start on, formatted (`serve` prints them: the journal). */
  onSystemLine?(line: string): void
}

export interface Daemon {
  readonly config: DaemonConfig
  readonly engine: DaemonEngine
  /** Restore and verify of listed snapshots (the API's `/jobs/{name}/backups/{filename}/verify|restore`). */
  readonly tasks: JobTasks
  /** Stops the schedules, cancels runs and tasks in flight, waits for them, then closes the logs. */
  stop(): Promise<void>
}

export async function createDaemon(config: DaemonConfig, options: DaemonOptions = {}): Promise<Daemon> {
  const logs = createLogHub(config, { persist: options.persistLogs ?? true })
  if (options.onSystemLine) logs.subscribe({ kind: 'system' }, options.onSystemLine)
  const log = engineLog(logs)
  const history =
    options.history ?? new FileRunHistory({ dataDir: config.dataDir, limit: config.history?.limit, warn: (message) => log.system('warn', message) })
  const configs = new Map<string, JobConfig>(config.jobs.map((job) => [job.name, job]))

  // A file restore killed mid-way: its temporary folder removed, a merge completed, the task recorded.
  await recoverRestores(config.dataDir, history, (job, level, message) => {
    if (configs.has(job)) log.job(job)(level, message)
    else log.system(level, `[${job}] ${message}`)
  })

  // A drill killed mid-way: its scratch folder removed.
  for (const name of await sweepDrillScratch(config.dataDir)) log.system('warn', `removed ${name}, the scratch folder of a drill that did not finish (killed?)`)
  // The temporary folders of killed daemon processes, removed as this one started (`daemon/privateTempFolder`).
  for (const path of sweptAtStart()) log.system('warn', `removed ${path}, the temporary folder of a daemon process that did not exit (killed?)`)

  // The runner holds the tasks in flight: the engine asks it before a run and stops it with itself.
  const runner = new TaskRunner({
    history,
    // A task killed with its process is recorded at the next start (by the engine, with the runs).
    notes: new InFlightNotes(config.dataDir),
    log: (name, level, message) => {
      log.job(name)(level, message)
      options.onTaskLog?.(name, level, message)
    },
    // A task's start and end in the system log too, as a backup's are (the journal carries every run).
    announce: (name, level, message) => log.system(level, `[${name}] ${message}`),
    // Called only when a task ends, long after `engine` below is built.
    onEnded: (record) => engine.taskEnded(record),
  })
  const { onTaskLog: _onTaskLog, onSystemLine: _onSystemLine, ...engineOptions } = options
  const engine = await createEngine(config, {
    ...engineOptions,
    logs,
    history,
    busyElsewhere: (job) => runner.busy(job),
    alsoStop: () => runner.stop(),
  })
  const tasks = createJobTasks({
    config,
    // `repositoryOf` throws `JobNotFoundError` for an unknown job, so the config below is there.
    job: (name) => ({ repository: engine.repositoryOf(name), config: configs.get(name)! }),
    backupRunning: (name) => engine.busy(name),
    runner,
    filesOf: (job, snapshot) => history.list(job).find((r) => r.kind === 'backup' && r.result === 'success' && r.snapshot === snapshot)?.filesRead,
  })
  const stopDrills = options.schedule === false ? () => {} : scheduleDrills(config, tasks, (job, level, message) => log.job(job)(level, message))
  return {
    config,
    engine,
    tasks,
    stop: () => {
      stopDrills()
      return engine.stop()
    },
  }
}
