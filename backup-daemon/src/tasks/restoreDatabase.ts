/**
 * @module tasks/restoreDatabase
 * Restores one database source's dump from a snapshot into a database named in `restore.databases`
 * (not where the source reads from): the source's entry is found as the CLI finds it
 * (`restoreDatabases`), with the connection swapped for the configured one. The kinds must match
 * (a `postgresql` dump into a `postgresql` target; `mysql` and `mariadb` dumps go into either).
 * PostgreSQL restores run in one transaction (`--single-transaction --exit-on-error`), so a failure or a
 * cancel (pg_restore is killed) leaves the target database as it was.
 */
import type { Readable } from 'node:stream'
import type { SourceConfig } from '../config/types.js'
import { restoreDatabases } from '../snapshot/restoreDatabases.js'
import type { RestoreDatabaseConfig } from '../config/restoreConfig.js'
import { TaskRefusedError } from './TaskRefusedError.js'

const family = (type: string) => (type === 'mariadb' ? 'mysql' : type)

/** The source with the target's connection in place of its own; refused when the kinds differ. */
export function retargetSource(source: SourceConfig, target: RestoreDatabaseConfig, targetName: string): SourceConfig {
  if (family(source.type) !== family(target.type)) {
    throw new TaskRefusedError(400, `source "${source.name}" is a ${source.type} source; restore.databases.${targetName} is ${target.type}`)
  }
  // Every connection key comes from the target (an unset one is unset, never the source's own).
  switch (target.type) {
    case 'postgresql':
      return { ...source, database: target.database, host: target.host, port: target.port, user: target.user, password: target.password } as SourceConfig
    case 'sqlite':
      return { ...source, path: target.path } as SourceConfig
    default: {
      const { host, socket, port, username, password, database } = target
      return { ...source, host, socket, port, username, password, database, allDatabases: false } as SourceConfig
    }
  }
}

export interface RestoreDatabaseOptions {
  overwrite: boolean
  signal: AbortSignal
  log(message: string): void
}

export async function restoreDatabase(archive: Readable, source: SourceConfig, allSources: SourceConfig[], options: RestoreDatabaseOptions): Promise<void> {
  await restoreDatabases(archive, [source], options, allSources)
}
