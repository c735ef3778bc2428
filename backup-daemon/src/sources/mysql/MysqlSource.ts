/**
 * @module sources/mysql/MysqlSource
 * A `mysql` or `mariadb` source: a logical dump by the server's own dump tool, streamed from the
 * child process into the archive as `<name>/<database>.sql` (or `<name>/all-databases.sql`); of
 * unknown size, so the archive writer spools it. Cancelling kills the tool; a non-zero exit fails
 * the run with the tool's last lines (which never hold the password: it is in the environment).
 */
import type { Readable } from 'node:stream'
import { childOutput } from '../support/childOutput.js'
import { countingStream, formatBytes } from '../support/countingStream.js'
import { findExecutable } from '../support/findExecutable.js'
import { oneByOne } from '../support/oneByOne.js'
import type { SourceRecord } from '../../tar/snapshotRecord.js'
import type { Source, SourceContext, SourceEntry } from '../types.js'
import { countDumpRows, type DumpRowCounter } from './countDumpRows.js'
import { mysqlDumpArgs } from './mysqlDumpArgs.js'
import type { MysqlFamilyConfig } from './schema.js'

/** The dump tools each kind tries, in order (the original's choice: mysql uses mysqldump). */
export const dumpTools: Record<MysqlFamilyConfig['type'], string[]> = {
  mysql: ['mysqldump', 'mariadb-dump'],
  mariadb: ['mariadb-dump', 'mysqldump'],
}

/** The dump's file name inside the source's folder (no path separator can come through). */
export function mysqlDumpEntryName(config: Pick<MysqlFamilyConfig, 'name' | 'database' | 'allDatabases'>): string {
  const file = config.allDatabases ? 'all-databases' : config.database!.replace(/[^A-Za-z0-9._-]/g, '_')
  return `${config.name}/${file}.sql`
}

export class MysqlSource implements Source {
  readonly name: string
  readonly type: MysqlFamilyConfig['type']
  /** Counts the rows of the dump as it streams (`countDumpRows` says why from the dump). */
  private counter: DumpRowCounter | undefined

  constructor(
    private readonly config: MysqlFamilyConfig,
    private readonly context: SourceContext,
    /** Where the dump tool is looked up (tests narrow it). @default process.env.PATH */
    private readonly path = process.env.PATH ?? '',
  ) {
    this.name = config.name
    this.type = config.type
  }

  batches(signal: AbortSignal): AsyncIterable<SourceEntry[]> {
    return oneByOne(this.entries(signal))
  }

  /** The dump's tables and row counts, for a restore drill; undefined unless the dump was read to its end. */
  recorded(): SourceRecord | undefined {
    const tables = this.counter?.tables()
    return tables && { tables }
  }

  /** The folder, then the dump, made when the archive writer opens it. */
  private async *entries(signal: AbortSignal): AsyncIterable<SourceEntry> {
    signal.throwIfAborted()
    const candidates = dumpTools[this.config.type]
    const tool = await findExecutable(candidates, this.path)
    if (!tool) throw new Error(`source "${this.name}": none of ${candidates.join(', ')} found on PATH (Debian: apt-get install mariadb-client)`)
    if (this.config.allDatabases && this.config.tables.length + this.config.excludeTables.length > 0) {
      this.context.log('warn', `source "${this.name}": tables and excludeTables are ignored with allDatabases (as in the original service)`)
    }
    const mtime = new Date()
    yield { name: this.name, type: 'directory', mode: 0o755, mtime }
    yield { name: mysqlDumpEntryName(this.config), type: 'file', mode: 0o600, mtime, open: (s) => this.dump(tool, s) }
  }

  private dump(tool: string, signal: AbortSignal): Readable {
    const { args, env } = mysqlDumpArgs(this.config)
    const label = tool.split('/').pop()!
    const what = this.config.allDatabases ? 'all databases' : `database "${this.config.database}"`
    const where = this.config.socket ?? `${this.config.host}:${this.config.port}`
    this.context.log('info', `source "${this.name}": ${label} of ${what} on ${where}`)
    const started = Date.now()
    const out = childOutput(tool, args, { env, signal, label })
    const counter = (this.counter = countDumpRows(this.config.allDatabases ? undefined : this.config.database))
    out.once('error', (err) => counter.stream.destroy(err))
    counter.stream.once('close', () => out.destroy())
    return countingStream(out.pipe(counter.stream), (bytes) =>
      this.context.log('info', `source "${this.name}": ${label} done, ${formatBytes(bytes)} in ${Date.now() - started} ms`),
    )
  }
}
