/**
 * @module tasks/restoreDatabase
 * Restores one database source's dump from a snapshot into a database named in `restore.databases`
 * (not where the source reads from): the source's entry is found as the CLI finds it
 * (`restoreDatabases`), with the connection swapped for the configured one. The kinds must match: the
 * source's kind declares the target types it goes into (`SourceFactory.restore.into`; `mysql` and
 * `mariadb` dumps go into either), how it is retargeted, how the target is named without secrets and
 * what a failure leaves behind (PostgreSQL: one transaction, so the target is as it was).
 */
import type { Readable } from 'node:stream'
import type { SourceConfig } from '../config/types.js'
import type { RestoreDatabaseConfig } from '../config/restoreConfig.js'
import { restoreDatabases } from '../restore/restoreDatabases.js'
import { sourceFactory } from '../sources/all.js'
import { TaskRefusedError } from './TaskRefusedError.js'

export interface RetargetedSource {
  /** The source with the target's connection in place of its own. */
  source: SourceConfig
  /** The target named without secrets. */
  where: string
  /** Appended to a failure's message (what the failure left behind), or ''. */
  failureNote: string
}

/** The source with the target's connection in place of its own; refused when the kinds differ. */
export function retargetSource(source: SourceConfig, target: RestoreDatabaseConfig, targetName: string): RetargetedSource {
  const into = sourceFactory(source.type)?.restore?.into
  if (!into || !Object.hasOwn(into.targets, target.type)) {
    throw new TaskRefusedError(400, `source "${source.name}" is a ${source.type} source; restore.databases.${targetName} is ${target.type}`)
  }
  // Every connection key comes from the target (an unset one is unset, never the source's own).
  const retargeted = into.retarget(source, target) as SourceConfig
  return { source: retargeted, where: into.targetLabel(target), failureNote: into.failureNote ?? '' }
}

export interface RestoreDatabaseOptions {
  overwrite: boolean
  signal: AbortSignal
  log(message: string): void
}

export async function restoreDatabase(archive: Readable, source: SourceConfig, allSources: SourceConfig[], options: RestoreDatabaseOptions): Promise<void> {
  await restoreDatabases(archive, [source], options, allSources)
}
