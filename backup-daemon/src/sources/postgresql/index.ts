/**
 * @module sources/postgresql
 * The `postgresql` source: `pg_dump --format=custom` of one database, streamed from the child
 * process into the archive as `<name>/<database>.dump` (of unknown size, so the archive writer spools
 * it). Restorable with `pg_restore` (see `restore/restorePostgres`). Cancelling kills pg_dump; a
 * non-zero exit fails the run with the last lines pg_dump printed.
 */
import { z } from 'zod'
import { childOutput } from '../support/childOutput.js'
import { sourceName } from '../support/sourceName.js'
import type { Source, SourceContext, SourceEntry, SourceFactory } from '../types.js'
import { splitPassword } from './connectionString.js'
import { pgDumpArgs } from './pgDumpArgs.js'

/**
 * File name of a database's dump inside the source's folder (no path separators can come through).
 * `database` is the name alone (`splitPassword(...).label` for a URI or key/value string).
 */
export function pgDumpEntryName(name: string, database: string): string {
  return `${name}/${database.replace(/[^A-Za-z0-9._-]/g, '_')}.dump`
}

export class PostgresqlSource implements Source {
  readonly type = 'postgresql'
  readonly name: string

  constructor(
    private readonly config: PostgresqlSourceConfig,
    private readonly context: SourceContext,
  ) {
    this.name = config.name
  }

  async *entries(signal: AbortSignal): AsyncIterable<SourceEntry> {
    signal.throwIfAborted()
    const { command, args, env } = pgDumpArgs(this.config)
    // The database name alone: a URI or key/value `database` may carry a password.
    const { label } = splitPassword(this.config.database)
    const mtime = new Date()
    yield { name: this.name, type: 'directory', mode: 0o755, mtime }
    yield {
      name: pgDumpEntryName(this.name, label),
      type: 'file',
      mode: 0o600,
      mtime,
      open: (s) => {
        this.context.log('info', `source "${this.name}": pg_dump of database "${label}"`)
        return childOutput(command, args, { env, signal: s, label: 'pg_dump' })
      },
    }
  }
}

const postgresqlSourceSchema = z.strictObject({
  type: z.literal('postgresql'),
  name: sourceName,
  /** A database name, or a URI / key-value connection string (its password goes to PGPASSWORD, never argv). */
  database: z.string().min(1),
  /** Host name or unix socket folder. @default libpq's default (PGHOST or the local socket) */
  host: z.string().min(1).optional(),
  /** @default 5432 */
  port: z.int().min(1).max(65_535).optional(),
  user: z.string().min(1).optional(),
  /** Passed to pg_dump as PGPASSWORD in its environment, never on the command line. */
  password: z.string().optional(),
  /** Table patterns for `--exclude-table`. */
  excludeTables: z.array(z.string().min(1)).optional(),
  /** Extra pg_dump arguments, appended as given (e.g. `["--no-owner"]`). */
  params: z.array(z.string()).optional(),
  /** The pg_dump binary. @default "pg_dump" (found on PATH) */
  pgDump: z.string().min(1).optional(),
})

/** One `type: postgresql` source entry after parsing. */
export type PostgresqlSourceConfig = z.output<typeof postgresqlSourceSchema>

export const postgresqlSource: SourceFactory<PostgresqlSourceConfig> = {
  type: 'postgresql',
  configSchema: postgresqlSourceSchema,
  secretKeys: ['password'],
  pathKeys: [],
  create: (config, context) => new PostgresqlSource(config, context),
}
