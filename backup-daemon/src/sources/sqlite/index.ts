/**
 * @module sources/sqlite
 * The `sqlite` source: one database file, copied consistently (`snapshotSqlite`) to a temporary file
 * that becomes one archive entry `<name>/<stem>.sqlite` of known size. The temporary file is removed
 * once the archive moved past the entry, or on abort. The copy's tables and row counts are recorded for
 * the restore drill (`recorded`, checked by `drill.ts`).
 */
import { createReadStream } from 'node:fs'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { oneByOne } from '../support/oneByOne.js'
import type { Source, SourceContext, SourceEntry, SourceFactory } from '../types.js'
import type { SourceRecord } from '../../tar/snapshotRecord.js'
import { sqliteDrill, type SqliteRecord } from './drill.js'
import { sqliteEntryName } from './entryName.js'
import { inspectSqlite } from './inspectSqlite.js'
import { snapshotSqlite } from './snapshotSqlite.js'
import { sqliteRestore } from './restore.js'
import { sqliteSourceSchema, type SqliteSourceConfig } from './schema.js'

export type { SqliteSourceConfig }

export { sqliteEntryName }

export class SqliteSource implements Source {
  readonly type = 'sqlite'
  private tables: SqliteRecord['tables'] | undefined

  constructor(
    readonly name: string,
    private readonly path: string,
    private readonly context: SourceContext,
    private readonly tempDir = tmpdir(),
  ) {}

  batches(signal: AbortSignal): AsyncIterable<SourceEntry[]> {
    return oneByOne(this.entries(signal))
  }

  recorded(): SourceRecord | undefined {
    return this.tables && { tables: this.tables }
  }

  /** The folder, then a consistent copy of the database, removed once the archive moved past it. */
  private async *entries(signal: AbortSignal): AsyncIterable<SourceEntry> {
    const folder = await mkdtemp(join(this.tempDir, 'backup-daemon-sqlite-'))
    try {
      const copy = join(folder, 'snapshot.sqlite')
      const started = Date.now()
      await snapshotSqlite(this.path, copy, signal)
      const info = await stat(copy)
      this.tables = (await inspectSqlite(copy, { integrityCheck: false, signal })).tables
      this.context.log('info', `source "${this.name}": consistent copy of ${this.path} (${info.size} bytes) in ${Date.now() - started} ms`)
      const mtime = new Date()
      yield { name: this.name, type: 'directory', mode: 0o755, mtime }
      yield {
        name: sqliteEntryName(this.name, this.path),
        type: 'file',
        mode: 0o600,
        mtime,
        size: info.size,
        open: (s) => createReadStream(copy, { signal: s }),
      }
    } finally {
      await rm(folder, { recursive: true, force: true })
    }
  }
}

export const sqliteSource: SourceFactory<SqliteSourceConfig> = {
  type: 'sqlite',
  configSchema: sqliteSourceSchema,
  secretKeys: [],
  pathKeys: ['path'],
  readPaths: [{ key: 'path', kind: 'file' }],
  dumps: true,
  restore: sqliteRestore,
  drill: sqliteDrill,
  create: (config, context) => new SqliteSource(config.name, config.path, context),
}
