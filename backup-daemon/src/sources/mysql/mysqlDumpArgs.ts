/**
 * @module sources/mysql/mysqlDumpArgs
 * The command line and environment of `mariadb-dump`/`mysqldump` for a `mysql` or `mariadb` source.
 * The password travels in `MYSQL_PWD` only: a command line is visible to every local user (`ps`),
 * another process's environment is not.
 */
import type { MysqlFamilyConfig } from './schema.js'

export interface MysqlDumpInvocation {
  args: string[]
  env: NodeJS.ProcessEnv
}

/** Connection options shared by the dump tool and the `mariadb`/`mysql` client used to restore. */
export function mysqlConnectionArgs(config: Pick<MysqlFamilyConfig, 'host' | 'socket' | 'port' | 'username'>): string[] {
  const args = config.socket ? [`--socket=${config.socket}`] : [`--host=${config.host}`, `--port=${config.port}`]
  // A socket path is only used with the `localhost` host name; forcing the protocol avoids surprises.
  args.push(config.socket ? '--protocol=SOCKET' : '--protocol=TCP')
  if (config.username) args.push(`--user=${config.username}`)
  return args
}

/** The environment for a MySQL client tool: the caller's, with `MYSQL_PWD` set (or removed). */
export function mysqlEnv(password: string | undefined, baseEnv: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...baseEnv }
  delete env.MYSQL_PWD
  if (password !== undefined && password !== '') env.MYSQL_PWD = password
  return env
}

export function mysqlDumpArgs(config: MysqlFamilyConfig, baseEnv: NodeJS.ProcessEnv = process.env): MysqlDumpInvocation {
  const args = mysqlConnectionArgs(config)
  // The original's configs often ask for it in extraParams already: once is enough.
  if (config.singleTransaction && !('single-transaction' in config.extraParams)) args.push('--single-transaction')
  // The closing `-- Dump completed on <date>` line is the only thing that differs between two dumps of an unchanged database:
  // without it they are the same bytes, which a restic repository stores once (README "Dump forms"). `dump-date` in extraParams keeps it.
  if (!('dump-date' in config.extraParams) && !('skip-dump-date' in config.extraParams)) args.push('--skip-dump-date')
  if (config.allDatabases) args.push('--all-databases')
  else for (const table of config.excludeTables) args.push(`--ignore-table=${config.database}.${table}`)
  // Sorted so the same config gives the same command line every run.
  for (const [key, value] of Object.entries(config.extraParams).sort(([a], [b]) => a.localeCompare(b))) {
    args.push(value === '' ? `--${key}` : `--${key}=${value}`)
  }
  // `--` ends the options: a database or table name starting with `-` is still a name.
  if (!config.allDatabases) args.push('--', config.database!, ...config.tables)
  return { args, env: mysqlEnv(config.password, baseEnv) }
}
