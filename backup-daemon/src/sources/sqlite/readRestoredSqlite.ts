/**
 * @module sources/sqlite/readRestoredSqlite
 * The `sqlite` kind's reader of a restored database for a job-level drill check (`SourceDrill.readTables`,
 * used by `restore/drill/cmsCheck`): the restored file in the drill's scratch folder, opened read-only in
 * a child Node process as `inspectSqlite` does (the binding is synchronous; a child can be killed on
 * cancel). One child lists the tables and their columns, one per table reads the columns asked for.
 */
import { randomBytes } from 'node:crypto'
import { readFile, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { runChild } from '../support/runChild.js'
import type { DrillTablesOptions, RestoredTables } from '../types.js'
import { sqliteEntryName } from './entryName.js'
import type { SqliteSourceConfig } from './schema.js'

// CommonJS on purpose: runs with `node -e`, without this package's TypeScript loader.
const script = `
const [libsql, file, out, request] = process.argv.slice(1)
const Database = require(libsql)
const quote = (name) => '"' + name.replace(/"/g, '""') + '"'
try {
  const db = new Database(file, { readonly: true, fileMustExist: true })
  try {
    const ask = JSON.parse(request)
    let result
    if (ask.table === undefined) {
      result = {}
      const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all()
      for (const { name } of names) result[name] = db.prepare('PRAGMA table_info(' + quote(name) + ')').all().map((c) => c.name)
    } else {
      result = db.prepare('SELECT ' + ask.columns.map(quote).join(', ') + ' FROM ' + quote(ask.table)).all()
    }
    require('node:fs').writeFileSync(out, JSON.stringify(result))
  } finally {
    db.close()
  }
} catch (err) {
  process.stderr.write(String((err && err.message) || err))
  process.exit(1)
}
`

async function query<T>(file: string, request: { table?: string; columns?: string[] }, signal: AbortSignal): Promise<T> {
  const libsql = createRequire(import.meta.url).resolve('libsql')
  const out = `${file}.${randomBytes(4).toString('hex')}.json`
  try {
    await runChild(process.execPath, ['--input-type=commonjs', '-e', script, libsql, file, out, JSON.stringify(request)], { signal, tailLines: 3 }).catch(
      (err: Error) => {
        if (signal.aborted) throw signal.reason
        const what = request.table === undefined ? 'the tables' : `table "${request.table}"`
        throw new Error(`reading ${what} of the restored ${file} failed: ${err.message.replace(/^node exited with \d+: /, '')}`)
      },
    )
    return JSON.parse(await readFile(out, 'utf8')) as T
  } finally {
    await rm(out, { force: true })
  }
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
