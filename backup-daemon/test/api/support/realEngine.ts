/**
 * @module test/api/support/realEngine
 * The real engine and its restore and verify tasks (`createDaemon`, the composition root) for API
 * contract tests, on a temporary folder: a small tree to back up,
 * a `backup-daemon.yaml` with local sources and storages, and the API tests' server settings
 * (`testConfig`). Jobs `nightly` (active) and `weekly` (inactive) by default, as the in-memory double had.
 * Builds in a few milliseconds; a run of the small tree takes well under a second.
 *
 * @example
 * const real = await realEngine()
 * const app = createApp({ config: real.config, engine: real.engine, tasks: real.tasks })
 * const snapshot = await real.runJob('nightly')
 * await real.close()
 */
import { execFileSync } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { loadConfig } from '../../../src/config/loadConfig.js'
import type { DaemonConfig } from '../../../src/config/types.js'
import { createDaemon } from '../../../src/daemon/createDaemon.js'
import type { DaemonEngine } from '../../../src/engine/createEngine.js'
import type { LogScope } from '../../../src/engine/types.js'
import type { JobTasks } from '../../../src/tasks/createJobTasks.js'
import { configIn, makeTree, tempDir, type JobYaml } from '../../engine/helpers.js'
import { testConfig, type TestConfigOverrides } from './testConfig.js'

export interface RealEngineOptions {
  /** The jobs of `backup-daemon.yaml` (each with the local source `./src` and the local storage `./backups`). */
  jobs?: JobYaml[]
  /** Server and log settings, as for `testConfig`. */
  overrides?: TestConfigOverrides
  /** Write per-job and system log files under the folder (off by default: the in-memory tail is enough). */
  persistLogs?: boolean
  /** A whole `backup-daemon.yaml` instead of `jobs` (for storages other than the local one); `{src}` is `./src`'s path. */
  configYaml?: string
  /** Lines kept in memory per log (the loader's defaults otherwise). */
  logLimits?: Partial<DaemonConfig['logLimits']>
}

export interface RealEngine {
  engine: DaemonEngine
  /** The restore and verify tasks built beside the engine. */
  tasks: JobTasks
  /** The loaded config with the API tests' server settings. */
  config: DaemonConfig
  /** The temporary folder: `src/` is backed up into `backups/<job>/`, state under `data/`. */
  dir: string
  /** Live subscribers of a log (counted by wrapping the real hub's `subscribe`, which keeps no count). */
  subscribers(scope: LogScope): number
  /** Lets a run held by `heldJob` go on (its beforeScript reads one line from the folder's FIFO). */
  release(): Promise<void>
  /** Runs a job to its end and returns the name of the snapshot it wrote (throws when the run failed). */
  runJob(name: string): Promise<string>
  close(): Promise<void>
}

/** A log line as the engine writes it (time first): the log hub keeps such a line exactly as given. */
export const stampedLine = (text: string): string => `2026-11-21T03:00:00.000Z ${text}`

/** Where `heldJob`'s beforeScript waits: replaced by the FIFO's path when the config is written. */
const HOLD = '{hold}'

/** A job whose run stays "running" (its beforeScript waits on a FIFO) until `release()` or a cancel. */
export const heldJob = (name: string, extra = ''): JobYaml => ({ name, extra: `    beforeScript: read line < ${HOLD}\n${extra}` })

export const defaultJobs: JobYaml[] = [
  { name: 'nightly', extra: "    schedule: '0 3 * * *'\n" },
  { name: 'weekly', extra: "    schedule: '0 4 * * 0'\n    active: false\n" },
]

async function loadYaml(dir: string, text: string): Promise<DaemonConfig> {
  const file = join(dir, 'backup-daemon.yaml')
  await writeFile(file, text.replaceAll('{src}', join(dir, 'src')))
  return loadConfig(file)
}

export async function realEngine(options: RealEngineOptions = {}): Promise<RealEngine> {
  const tmp = await tempDir('bd-api-')
  await makeTree(join(tmp.dir, 'src'))
  const hold = join(tmp.dir, 'hold')
  execFileSync('mkfifo', [hold])
  const jobs = (options.jobs ?? defaultJobs).map((job) => ({ ...job, extra: job.extra?.replaceAll(HOLD, hold) }))
  const loaded = options.configYaml ? await loadYaml(tmp.dir, options.configYaml) : await configIn(tmp.dir, jobs)
  const api = testConfig(options.overrides)
  const config: DaemonConfig = {
    ...loaded,
    server: api.server,
    logs: { ...loaded.logs, ...options.overrides?.logs },
    logLimits: { ...loaded.logLimits, ...options.logLimits },
  }
  const { engine, tasks } = await createDaemon(config, { schedule: false, persistLogs: options.persistLogs ?? false })
  const live = new Map<string, number>()
  const keyOf = (scope: LogScope) => (scope.kind === 'system' ? 'system' : `job:${scope.job}`)
  const subscribe = engine.logs.subscribe.bind(engine.logs)
  engine.logs.subscribe = (scope, listener) => {
    const key = keyOf(scope)
    live.set(key, (live.get(key) ?? 0) + 1)
    const unsubscribe = subscribe(scope, listener)
    let ended = false
    return () => {
      if (!ended) live.set(key, live.get(key)! - 1)
      ended = true
      unsubscribe()
    }
  }
  return {
    engine,
    tasks,
    config,
    dir: tmp.dir,
    subscribers: (scope) => live.get(keyOf(scope)) ?? 0,
    // Opening a FIFO for writing waits for its reader: the held script, already running.
    release: () => writeFile(hold, 'go\n'),
    async runJob(name) {
      const before = new Set((await engine.listSnapshots(name)).map((snapshot) => snapshot.name))
      engine.run(name, 'manual')
      const info = await engine.whenIdle(name)
      if (info.status !== 'success') throw new Error(`the run of ${name} ended ${info.status}: ${info.error}`)
      const written = (await engine.listSnapshots(name)).filter((snapshot) => !before.has(snapshot.name))
      if (written.length !== 1) throw new Error(`the run of ${name} wrote ${written.length} snapshots`)
      return written[0]!.name
    },
    async close() {
      await engine.stop()
      await tmp.remove()
    },
  }
}
