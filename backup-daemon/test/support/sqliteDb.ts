/**
 * @module test/support/sqliteDb
 * SQLite databases for tests through `libsql` (a dependency of the daemon, loaded by `require` as it has no
 * ES module entry): open one, or create the `items` table the job tests back up and compare.
 */
import { createRequire } from 'node:module'

export interface SqliteDb {
  exec(sql: string): void
  prepare(sql: string): { get(): Record<string, unknown> }
  close(): void
}

const Database = createRequire(import.meta.url)('libsql') as new (path: string) => SqliteDb

export const openSqlite = (path: string): SqliteDb => new Database(path)

/** Runs `sql` on the database at `path` (created when missing) and closes it. */
export function execSqlite(path: string, sql: string): void {
  const db = openSqlite(path)
  try {
    db.exec(sql)
  } finally {
    db.close()
  }
}

/** Creates `items (id INTEGER PRIMARY KEY, name TEXT)` at `path` holding `names` in that order. */
export function writeItemsDb(path: string, names: string[]): void {
  const values = names.map((name) => `('${name.replaceAll("'", "''")}')`).join(', ')
  execSqlite(path, `CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO items (name) VALUES ${values}`)
}
