/**
 * @module sources/postgresql/restorePostgres
 * Feeds a `postgresql` source's dump (custom format) to `pg_restore` on its stdin. The password goes
 * in `PGPASSWORD` (never on the command line); `--exit-on-error` and, by default, one transaction, so
 * a failed restore leaves the target database as it was.
 */
import type { Readable } from 'node:stream'
import { splitPassword } from './connectionString.js'
import { feedCommand } from '../support/feedCommand.js'

export interface PostgresConnection {
  /** The database to restore into (it must exist unless `create` is set). */
  database: string
  host?: string
  port?: number
  user?: string
  password?: string
}

export interface RestorePostgresOptions {
  /** Drop objects before recreating them (`--clean --if-exists`). @default false */
  clean?: boolean
  /** Skip `ALTER OWNER` statements (restoring as another role). @default false */
  noOwner?: boolean
  /** All in one transaction (incompatible with some dumps, e.g. `CREATE DATABASE`). @default true */
  singleTransaction?: boolean
  /** Extra pg_restore arguments. */
  params?: string[]
  /** The pg_restore binary. @default "pg_restore" */
  pgRestore?: string
  signal?: AbortSignal
}

/**
 * @example
 * await restorePostgres(entryStream, { database: 'shop', host: 'db', user: 'postgres', password }, { clean: true })
 */
export async function restorePostgres(dump: Readable, connection: PostgresConnection, options: RestorePostgresOptions = {}): Promise<void> {
  // A password inside a URI or key/value `database` goes to PGPASSWORD too, never on the command line.
  const split = splitPassword(connection.database)
  const args = ['--no-password', '--exit-on-error', `--dbname=${split.database}`]
  if (connection.host) args.push(`--host=${connection.host}`)
  if (connection.port !== undefined) args.push(`--port=${connection.port}`)
  if (connection.user) args.push(`--username=${connection.user}`)
  if (options.clean) args.push('--clean', '--if-exists')
  if (options.noOwner) args.push('--no-owner')
  if (options.singleTransaction ?? true) args.push('--single-transaction')
  args.push(...(options.params ?? []))
  const env: NodeJS.ProcessEnv = { ...process.env }
  delete env.PGPASSWORD
  const password = split.password ?? connection.password
  if (password !== undefined) env.PGPASSWORD = password
  await feedCommand(options.pgRestore ?? 'pg_restore', args, dump, { env, signal: options.signal, label: 'pg_restore' })
}
