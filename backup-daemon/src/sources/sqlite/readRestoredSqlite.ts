/**
 * @module sources/sqlite/readRestoredSqlite
 * The `sqlite` kind's reader of a restored database for a job-level drill check (`SourceDrill.readTables`,
 * used by `restore/drill/cmsCheck`): the restored file in the drill's scratch folder, opened read-only in
 * a child Node process as `inspectSqlite` does (the binding is synchronous; a child can be killed on
 * cancel). One child lists the tables and their columns, one per table reads the columns asked for.
 */
import type { DrillTablesOptions, RestoredTables } from '../types.js'
import { sqliteEntryName } from './entryName.js'
import type { SqliteSourceConfig } from './schema.js'
import { readSqliteInChild } from './sqliteChild.js'

/** Reads in the child (`sqliteChild`); `arg` is the request as JSON: no table, every table's columns; else a table's columns' rows. */
const select = `
const quote = (name) => '"' + name.replace(/"/g, '""') + '"'
const ask = JSON.parse(arg)
if (ask.table !== undefined) return db.prepare('SELECT ' + ask.columns.map(quote).join(', ') + ' FROM ' + quote(ask.table)).all()
const result = {}
const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all()
for (const { name } of names) result[name] = db.prepare('PRAGMA table_info(' + quote(name) + ')').all().map((c) => c.name)
return result
`

function query<T>(file: string, request: { table?: string; columns?: string[] }, signal: AbortSignal): Promise<T> {
  const what = request.table === undefined ? 'the tables' : `table "${request.table}"`
  return readSqliteInChild<T>(file, select, JSON.stringify(request), { what: `${what} of the restored ${file}`, signal })
}

export async function readRestoredSqlite({ config, files, signal }: DrillTablesOptions<SqliteSourceConfig>): Promise<RestoredTables> {
  const entry = sqliteEntryName(config.name, config.path)
  const file = files.find((f) => f.name === entry)?.path
  if (!file) throw new Error(`${entry}: not in the snapshot`)
  const tables = await query<Record<string, string[]>>(file, {}, signal)
  return {
    tables,
    rows: (table, columns, s) => query<Record<string, unknown>[]>(file, { table, columns }, s),
    close: async () => {}, // nothing was created: the file stays in the drill's scratch folder
  }
}
