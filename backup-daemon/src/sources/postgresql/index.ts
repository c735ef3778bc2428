/**
 * @module sources/postgresql
 * The `postgresql` source: `pg_dump --format=custom` of one database, streamed from the child
 * process into the archive as `<name>/<database>.dump` (of unknown size, so the archive writer spools
 * it). Restorable with `pg_restore` (`restore.ts`). Cancelling kills pg_dump; a
 * non-zero exit fails the run with the last lines pg_dump printed.
 */
import { childOutput } from '../support/childOutput.js'
import { oneByOne } from '../support/oneByOne.js'
import type { Source, SourceContext, SourceEntry, SourceFactory } from '../types.js'
import { splitPassword } from './connectionString.js'
import { pgDumpArgs } from './pgDumpArgs.js'
import { postgresqlRestore } from './restore.js'
import { postgresqlSourceSchema, type PostgresqlSourceConfig } from './schema.js'

export type { PostgresqlSourceConfig }

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

  batches(signal: AbortSignal): AsyncIterable<SourceEntry[]> {
    return oneByOne(this.entries(signal))
  }

  /** The folder, then the dump, made when the archive writer opens it. */
  private async *entries(signal: AbortSignal): AsyncIterable<SourceEntry> {
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

export const postgresqlSource: SourceFactory<PostgresqlSourceConfig> = {
  type: 'postgresql',
  configSchema: postgresqlSourceSchema,
  secretKeys: ['password'],
  pathKeys: [],
  dumps: true,
  restore: postgresqlRestore,
  create: (config, context) => new PostgresqlSource(config, context),
}
