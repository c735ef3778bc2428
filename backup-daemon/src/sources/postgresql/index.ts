/**
 * @module sources/postgresql
 * The `postgresql` source: `pg_dump --format=custom` of one database, streamed from the child
 * process into the archive as `<name>/<database>.dump` (of unknown size, so the archive writer spools
 * it). Restorable with `pg_restore` (`restore.ts`). Cancelling kills pg_dump; a
 * non-zero exit fails the run with the last lines pg_dump printed. pg_dump reads a snapshot exported by a
 * psql session that counts the same rows for the restore drill (`dumpSnapshot`, `recorded`; checked by
 * `drill.ts`).
 */
import { childOutput } from '../support/childOutput.js'
import { oneByOne } from '../support/oneByOne.js'
import type { SourceRecord } from '../../tar/snapshotRecord.js'
import type { Source, SourceContext, SourceEntry, SourceFactory } from '../types.js'
import { splitPassword } from './connectionString.js'
import type { PostgresqlRecord } from './countTables.js'
import { postgresqlDrill } from './drill.js'
import { openDumpSnapshot } from './dumpSnapshot.js'
import { pgDumpEntryName } from './entryName.js'
import { pgDumpArgs, uncompressedDump } from './pgDumpArgs.js'
import { postgresqlRestore } from './restore.js'
import { postgresqlSourceSchema, type PostgresqlSourceConfig } from './schema.js'

export type { PostgresqlSourceConfig }

export { pgDumpEntryName }

export class PostgresqlSource implements Source {
  readonly type = 'postgresql'
  readonly name: string
  private record: PostgresqlRecord | undefined

  constructor(
    private readonly config: PostgresqlSourceConfig,
    private readonly context: SourceContext,
  ) {
    this.name = config.name
  }

  batches(signal: AbortSignal): AsyncIterable<SourceEntry[]> {
    return oneByOne(this.entries(signal))
  }

  recorded(): SourceRecord | undefined {
    return this.record && { ...this.record }
  }

  /** The folder, then the dump, made when the archive writer opens it; then the row counts of its snapshot. */
  private async *entries(signal: AbortSignal): AsyncIterable<SourceEntry> {
    signal.throwIfAborted()
    const snapshot = await openDumpSnapshot(this.config, this.context, signal)
    try {
      const { command, args, env } = pgDumpArgs(this.config, process.env, snapshot.id, this.context.compressedDownstream ?? false)
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
          const form = uncompressedDump(this.config, this.context.compressedDownstream ?? false) ? 'uncompressed' : "pg_dump's compression"
          this.context.log('info', `source "${this.name}": pg_dump of database "${label}" (custom format, ${form})`)
          return childOutput(command, args, { env, signal: s, label: 'pg_dump' })
        },
      }
      // The consumer asks for more once the dump is read: pg_dump is done with the snapshot.
      this.record = await snapshot.finish()
    } finally {
      await snapshot.close()
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
  drill: postgresqlDrill,
  create: (config, context) => new PostgresqlSource(config, context),
}
