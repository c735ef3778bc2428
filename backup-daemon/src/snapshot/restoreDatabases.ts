/**
 * @module snapshot/restoreDatabases
 * Restores the database sources of a job from a snapshot's tar stream with the restore functions of
 * `restore/`: each `sqlite`, `postgresql` or `mongodb` source's entry (`<source name>/...`, or
 * `./<type>_<n>/...` in the original service's archives, the n-th source of that type) goes back
 * where the source reads from (the same file, database or server). `overwrite` replaces an existing
 * SQLite file, adds `--clean --if-exists` to pg_restore and drops MongoDB collections first.
 * The MongoDB restore (and with it the `mongodb` driver, ~200 ms to import) is imported only when a
 * mongodb source is restored (start-up time, README "Start-up time").
 */
import { dirname, join } from 'node:path'
import { Readable } from 'node:stream'
import type { SourceConfig } from '../config/types.js'
import { restoreMysql } from '../restore/restoreMysql.js'
import { restorePostgres } from '../restore/restorePostgres.js'
import { restoreRedis } from '../restore/restoreRedis.js'
import { splitPassword } from '../sources/postgresql/connectionString.js'
import { mongoUri } from '../sources/mongodb/dumpSettings.js'
import { restoreSqlite } from '../restore/restoreSqlite.js'
import { forEachTarEntry } from '../archive/forEachTarEntry.js'

export const databaseTypes = ['sqlite', 'postgresql', 'mongodb', 'mysql', 'mariadb', 'redis'] as const

export interface RestoreDatabasesOptions {
  overwrite?: boolean
  signal?: AbortSignal
  log(message: string): void
}

async function restoreEntry(source: SourceConfig, entry: Readable, options: RestoreDatabasesOptions): Promise<string> {
  const { overwrite = false, signal } = options
  switch (source.type) {
    case 'sqlite':
      await restoreSqlite(entry, source.path, { overwrite, signal })
      return source.path
    case 'postgresql': {
      const { database, host, port, user, password } = source
      const pgRestore = source.pgDump ? join(dirname(source.pgDump), 'pg_restore') : undefined
      await restorePostgres(entry, { database, host, port, user, password }, { clean: overwrite, signal, ...(pgRestore && { pgRestore }) })
      return `database ${splitPassword(database).label}`
    }
    case 'mongodb': {
      const { restoreMongo } = await import('../restore/restoreMongo.js')
      const result = await restoreMongo(entry, mongoUri(source), { drop: overwrite, signal })
      return `${result.collections} collection(s), ${result.documents} document(s)`
    }
    case 'mysql':
    case 'mariadb': {
      const { database, host, socket, port, username, password } = source
      await restoreMysql(entry, { database, host, socket, port, username, password }, { overwrite, signal })
      return database ? `database ${database}` : 'all databases of the dump'
    }
    case 'redis':
      // A running server cannot load an RDB; only a file source (`path`) goes back in place.
      if (!source.path)
        throw new Error(`a live redis source is restored by hand: stop the server, restore ${source.name}/dump.rdb with --to into its dir, start it`)
      await restoreRedis(entry, source.path, { overwrite, signal })
      return source.path
    default:
      throw new Error(`source "${source.name}" (${source.type}) is not a database`)
  }
}

/** Restores every chosen database source found in the archive; rejects when one is missing or fails. */
export async function restoreDatabases(
  archive: Readable,
  sources: SourceConfig[],
  options: RestoreDatabasesOptions,
  allSources: SourceConfig[] = sources,
): Promise<string[]> {
  const wanted = new Map(sources.map((source) => [source.name, source]))
  // The original service archives source i of a type as `./<type>_<n>/...` (n counting that type from 1).
  const originalFolders = new Map<string, string>()
  const counters = new Map<string, number>()
  for (const source of allSources) {
    const n = (counters.get(source.type) ?? 0) + 1
    counters.set(source.type, n)
    originalFolders.set(`${source.type}_${n}`, source.name)
  }
  const restored: string[] = []
  await forEachTarEntry(archive, async (header, stream) => {
    const top = header.name.replace(/^(\.\/)+/, '').split('/')[0] ?? ''
    const source = wanted.get(top) ?? wanted.get(originalFolders.get(top) ?? '')
    if (!source || header.type !== 'file') {
      await new Promise<void>((resolve) => {
        stream.on('end', () => resolve())
        stream.resume()
      })
      return
    }
    wanted.delete(source.name)
    options.log(`restoring source "${source.name}" (${source.type}) from ${header.name}`)
    try {
      // tar-stream's entries are streamx streams: the restore functions take Node streams.
      const where = await restoreEntry(source, Readable.from(stream as AsyncIterable<Buffer>, { objectMode: false }), options)
      restored.push(source.name)
      options.log(`restored source "${source.name}" into ${where}`)
    } catch (err) {
      throw new Error(`source "${source.name}": ${(err as Error).message}${options.overwrite ? '' : " (the CLI's --force replaces existing data)"}`, {
        cause: err,
      })
    }
  })
  if (wanted.size > 0) throw new Error(`not in the snapshot: source(s) ${[...wanted.keys()].map((n) => `"${n}"`).join(', ')}`)
  return restored
}
