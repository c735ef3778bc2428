/**
 * @module cli/snapshotCommand
 * What `verify`, `restore` and `snapshots` share: the config loaded, the job found, its storage entries chosen
 * (no engine: these commands never touch the daemon's state or schedules, so they run beside a live
 * daemon). A job or storage name that is not there is answered with the nearest one and the list.
 */
import type { DaemonConfig, JobConfig, StorageConfig } from '../config/types.js'
import { openJobRepository, type JobRepository, type OpenJobRepositoryOptions } from '../repository/jobRepository.js'
import { load } from './output.js'
import { suggest } from './terminal/suggest.js'

export interface JobContext {
  /** The whole config (the tasks run in the daemon it describes). */
  config: DaemonConfig
  job: JobConfig
  /** The storage entries to read (all of the job's, or the one `--storage` names). */
  entries: StorageConfig[]
  /** The daemon's data folder (a restic repository's daemon id). */
  dataDir?: string
}

/** The job's snapshots on the chosen entries (`wrapStorage`: e.g. the `--limit-download` pace). */
export const repositoryOf = (opened: JobContext, options: Omit<OpenJobRepositoryOptions, 'entries'> = {}): JobRepository =>
  openJobRepository(opened.job, { ...options, entries: opened.entries, ...(opened.dataDir && { dataDir: opened.dataDir }) })

/** `did you mean "x"? ` when a known name is near `name`. */
const nearest = (name: string, known: string[]) => {
  const near = suggest(name, known)
  return near ? `did you mean "${near}"? ` : ''
}

/** `COMMAND: no job "x" in FILE; did you mean "y"? (jobs: ...)`. */
export function unknownJob(command: string, name: string, file: string, jobs: JobConfig[]): string {
  const names = jobs.map((j) => j.name)
  return `${command}: no job "${name}" in ${file}; ${nearest(name, names)}(jobs: ${names.join(', ') || 'none'})`
}

/** The job and its storage entries (only `storage` when given), or an exit code after printing why. */
export async function openJob(file: string, name: string, storage?: string, command = 'verify'): Promise<JobContext | number> {
  const config = await load(file)
  if (!config) return 1
  const job = config.jobs.find((j) => j.name === name)
  if (!job) {
    process.stderr.write(`${unknownJob(command, name, file, config.jobs)}\n`)
    return 2
  }
  const entries = storage === undefined ? job.storages : job.storages.filter((s) => s.name === storage)
  if (entries.length === 0) {
    const names = job.storages.map((s) => s.name)
    process.stderr.write(`${command}: --storage "${storage}": job "${name}" has no such storage; ${nearest(storage!, names)}(storages: ${names.join(', ')})\n`)
    return 2
  }
  return { config, job, entries, dataDir: config.dataDir }
}
