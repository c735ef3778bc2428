/**
 * @module sources/sqlite/drill
 * How a restore drill proves a `sqlite` source's snapshot restores (`SourceDrill`): the database entry,
 * restored into the drill's scratch folder, must pass `PRAGMA integrity_check` and hold the tables and
 * row counts the backup read from the copy it archived (`SqliteSource.recorded`). The source's own file
 * is never opened. `readTables` reads the restored file's rows for the CMS check (`readRestoredSqlite`).
 */
import type { SourceDrill } from '../types.js'
import { inspectSqlite } from './inspectSqlite.js'
import { readRestoredSqlite } from './readRestoredSqlite.js'
import { sqliteEntryName } from './entryName.js'
import type { SqliteSourceConfig } from './schema.js'

/** What the source records at backup time. */
export interface SqliteRecord {
  tables: Record<string, number>
}

export const sqliteDrill: SourceDrill<SqliteSourceConfig> = {
  async check({ config, files, recorded, signal }) {
    const entry = sqliteEntryName(config.name, config.path)
    const file = files.find((f) => f.name === entry)
    if (!file) return { checked: entry, differences: [`${entry}: not in the snapshot`] }
    const found = await inspectSqlite(file.path, { integrityCheck: true, signal })
    const differences: string[] = []
    if (found.integrity !== 'ok') differences.push(`${entry}: PRAGMA integrity_check: ${(found.integrity ?? '').slice(0, 300)}`)
    const expected = (recorded as SqliteRecord | undefined)?.tables
    if (!expected) {
      differences.push(`${entry}: the snapshot's record holds no tables for source "${config.name}"`)
    } else {
      for (const [table, rows] of Object.entries(expected)) {
        const restored = found.tables[table]
        if (restored === undefined) differences.push(`${entry}: table "${table}" is missing (recorded with ${rows} row(s))`)
        else if (restored !== rows) differences.push(`${entry}: table "${table}" has ${restored} row(s), the backup recorded ${rows}`)
      }
      for (const table of Object.keys(found.tables)) {
        if (!(table in expected)) differences.push(`${entry}: table "${table}" was not recorded at backup`)
      }
    }
    const tables = Object.keys(found.tables).length
    return { checked: `${entry}: integrity_check ${found.integrity}, ${tables} table(s) and their row counts`, differences }
  },
  readTables: readRestoredSqlite,
}
