/**
 * @module sources/support/scratchDatabase
 * The names of a restore drill's throwaway databases (PostgreSQL, MariaDB/MySQL, MongoDB): a fixed prefix,
 * the drilling process's id and a random part, so a drill can never create, fill or drop a database that
 * holds anything else. A config whose source or restore target names a database with the prefix is refused
 * when it loads (`config/crossChecks`), and a drill killed mid-way leaves a name its next start recognises
 * (`scratchDatabasePid`) and drops once that process is gone.
 */
import { randomBytes } from 'node:crypto'

/** Lower case, letters, digits and `_`: a valid unquoted identifier in PostgreSQL and MySQL, a valid MongoDB name. */
export const scratchDatabasePrefix = 'backup_daemon_drill_'

const scratchPattern = new RegExp(`^${scratchDatabasePrefix}(\\d+)_[0-9a-f]{12}$`)

/** A new scratch database name: `backup_daemon_drill_<pid>_<12 hex>` (at most 45 characters). */
export function scratchDatabaseName(): string {
  return `${scratchDatabasePrefix}${process.pid}_${randomBytes(6).toString('hex')}`
}

/** The id of the process that named `name`, or undefined when `name` is no scratch database's. */
export function scratchDatabasePid(name: string): number | undefined {
  const pid = Number(scratchPattern.exec(name)?.[1])
  return pid > 0 ? pid : undefined
}

/** Whether a config string (a database name, a URI) names a scratch database: such a config is refused. */
export function namesScratchDatabase(value: string): boolean {
  return value.toLowerCase().includes(scratchDatabasePrefix)
}
