/**
 * @module sources/postgresql/drill
 * How a restore drill proves a `postgresql` source's snapshot restores (`SourceDrill`): its dump, restored
 * from the drill's scratch folder with pg_restore (`restorePostgres`, one transaction, no owners or grants:
 * the drill checks data, and a temporary server has no roles), into a scratch database
 * (`support/scratchDatabase`) that the drill creates and always drops, on the source's own server
 * (`databaseServer: configured`, with the source's credentials, which need CREATEDB) or on a temporary
 * server started from the installed binaries (`temporary`, `tempServer`), as `restoredDatabase` does it. Its tables and exact row counts
 * (`countTables`) must be those recorded at dump time (`dumpSnapshot`). The source's own database is only
 * connected to, never written. A failed restore is a difference; a server that cannot be reached or a
 * refused CREATE DATABASE fails the check, with nothing created. The CMS check reads the restored tables
 * too (`readRestoredPostgres`).
 */
import type { SourceDrill } from '../types.js'
import { splitPassword } from './connectionString.js'
import { countTablesSql, parseCounts, type PostgresqlRecord } from './countTables.js'
import { pgDumpEntryName } from './entryName.js'
import { psqlQuery } from './psql.js'
import { readRestoredPostgres } from './readRestoredPostgres.js'
import { openRestored } from './restoredDatabase.js'
import type { PostgresqlSourceConfig } from './schema.js'

/** Every difference between the restored counts and the recorded ones, each naming the table. */
export function compareCounts(entry: string, found: Record<string, number>, expected: Record<string, number>): string[] {
  const differences: string[] = []
  for (const [table, rows] of Object.entries(expected)) {
    const restored = found[table]
    if (restored === undefined) differences.push(`${entry}: table "${table}" is missing (recorded with ${rows} row(s))`)
    else if (restored !== rows) differences.push(`${entry}: table "${table}" has ${restored} row(s), the backup recorded ${rows}`)
  }
  for (const table of Object.keys(found)) if (!(table in expected)) differences.push(`${entry}: table "${table}" was not recorded at backup`)
  return differences
}

export const postgresqlDrill: SourceDrill<PostgresqlSourceConfig> = {
  async check(options) {
    const { config, files, signal } = options
    const entry = pgDumpEntryName(config.name, splitPassword(config.database).label)
    const file = files.find((f) => f.name === entry)
    if (!file) return { checked: entry, differences: [`${entry}: not in the snapshot`] }
    const record = options.recorded as PostgresqlRecord | undefined
    let restored: { where: string; counts: Record<string, number> }
    try {
      const database = await openRestored(file.path, options)
      try {
        restored = { where: database.where, counts: parseCounts(await psqlQuery(database.target, countTablesSql(), signal)) }
      } finally {
        await database.close()
      }
    } catch (err) {
      signal.throwIfAborted()
      const message = (err as Error).message
      // pg_restore's own failure is the snapshot's (truncated, corrupted); anything else is the drill's.
      if (/^pg_restore exited/.test(message)) return { checked: entry, differences: [`${entry}: the restore failed: ${message}`] }
      throw err
    }
    const tables = Object.keys(restored.counts).length
    const checked = `${entry}: restored into a ${restored.where}, ${tables} table(s)`
    if (record?.uncounted) return { checked: `${checked} (row counts not compared: ${record.uncounted})`, differences: [] }
    if (!record?.tables) return { checked, differences: [`${entry}: the snapshot's record holds no tables for source "${config.name}"`] }
    return { checked: `${checked} and their row counts`, differences: compareCounts(entry, restored.counts, record.tables) }
  },
  readTables: readRestoredPostgres,
}
