/**
 * @module tasks/restoreOptions
 * What a restore of a job may be asked for, so a client offers choices instead of free text to guess
 * (issue 38): the folders of `restore.roots`, the job's database sources each with the `restore.databases`
 * entries of a kind it restores into, and the job's sources whose restore can upload into a video library.
 * Names and paths only, never a connection key.
 */
import type { DaemonConfig, JobConfig } from '../config/types.js'
import { uploadableSources } from '../restore/uploadSources.js'
import { sourceFactory } from '../sources/all.js'

export interface RestoreOptions {
  job: string
  /** `restore.roots`: a files restore goes into a folder strictly inside one. */
  roots: string[]
  /** The job's sources whose dump restores into a database, each with the `restore.databases` names that take it. */
  databaseSources: { name: string; type: string; targets: string[] }[]
  /** The job's sources a files restore can then upload into their library (`intoLibrary`). */
  librarySources: string[]
}

export function restoreOptions(config: DaemonConfig, job: JobConfig): RestoreOptions {
  const databases = Object.entries(config.restore?.databases ?? {})
  const databaseSources = job.sources.flatMap((source) => {
    const into = sourceFactory(source.type)?.restore?.into
    if (!into) return []
    return [{ name: source.name, type: source.type, targets: databases.filter(([, target]) => Object.hasOwn(into.targets, target.type)).map(([name]) => name) }]
  })
  return { job: job.name, roots: [...(config.restore?.roots ?? [])], databaseSources, librarySources: uploadableSources(job.sources).map((s) => s.name) }
}
