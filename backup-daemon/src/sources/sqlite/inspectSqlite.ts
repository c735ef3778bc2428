/**
 * @module sources/sqlite/inspectSqlite
 * A database file's tables and row counts (and, for a restore drill, its `PRAGMA integrity_check`), read
 * in a child Node process as `snapshotSqlite` does: the binding is synchronous, and counting the rows of a
 * large table would otherwise hold the daemon's event loop; a child can be killed on cancel. At backup it
 * reads the consistent copy the source archives, so the counts are those of the dumped bytes.
 */
import { readSqliteInChild } from './sqliteChild.js'

/** Reads in the child (`sqliteChild`); `arg` is '1' to run the integrity check. */
const inspect = `
const result = { tables: {} }
if (arg === '1') result.integrity = db.prepare('PRAGMA integrity_check').all().map((row) => row.integrity_check).join('; ')
const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all()
for (const { name } of names) {
  result.tables[name] = db.prepare('SELECT count(*) AS n FROM "' + name.replace(/"/g, '""') + '"').get().n
}
return result
`

export interface SqliteInspection {
  /** By table name (SQLite's own `sqlite_*` tables left out): its row count. */
  tables: Record<string, number>
  /** `PRAGMA integrity_check`'s rows joined (`ok` when sound); only when asked for. */
  integrity?: string
}

/** Reads `file`'s tables and row counts; with `integrityCheck`, checks it first. Writes `<file>.<random>.json` beside it for a moment. */
export async function inspectSqlite(file: string, options: { integrityCheck: boolean; signal: AbortSignal }): Promise<SqliteInspection> {
  return readSqliteInChild<SqliteInspection>(file, inspect, options.integrityCheck ? '1' : '0', { what: `the tables of ${file}`, signal: options.signal })
}
