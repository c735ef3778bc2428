/**
 * @module sources/sqlite/inspectSqlite
 * A database file's tables and row counts (and, for a restore drill, its `PRAGMA integrity_check`), read
 * in a child Node process as `snapshotSqlite` does: the binding is synchronous, and counting the rows of a
 * large table would otherwise hold the daemon's event loop; a child can be killed on cancel. At backup it
 * reads the consistent copy the source archives, so the counts are those of the dumped bytes.
 */
import { randomBytes } from 'node:crypto'
import { readFile, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { runChild } from '../support/runChild.js'

// CommonJS on purpose: runs with `node -e`, without this package's TypeScript loader.
const script = `
const [libsql, file, out, check] = process.argv.slice(1)
const Database = require(libsql)
try {
  const db = new Database(file, { readonly: true, fileMustExist: true })
  try {
    const result = { tables: {} }
    if (check === '1') result.integrity = db.prepare('PRAGMA integrity_check').all().map((row) => row.integrity_check).join('; ')
    const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all()
    for (const { name } of names) {
      result.tables[name] = db.prepare('SELECT count(*) AS n FROM "' + name.replace(/"/g, '""') + '"').get().n
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

export interface SqliteInspection {
  /** By table name (SQLite's own `sqlite_*` tables left out): its row count. */
  tables: Record<string, number>
  /** `PRAGMA integrity_check`'s rows joined (`ok` when sound); only when asked for. */
  integrity?: string
}

/** Reads `file`'s tables and row counts; with `integrityCheck`, checks it first. Writes `<file>.<random>.json` beside it for a moment. */
export async function inspectSqlite(file: string, options: { integrityCheck: boolean; signal: AbortSignal }): Promise<SqliteInspection> {
  const libsql = createRequire(import.meta.url).resolve('libsql')
  const out = `${file}.${randomBytes(4).toString('hex')}.json`
  try {
    await runChild(process.execPath, ['--input-type=commonjs', '-e', script, libsql, file, out, options.integrityCheck ? '1' : '0'], {
      signal: options.signal,
      tailLines: 3,
    }).catch((err: Error) => {
      if (options.signal.aborted) throw options.signal.reason
      throw new Error(`reading the tables of ${file} failed: ${err.message.replace(/^node exited with \d+: /, '')}`)
    })
    return JSON.parse(await readFile(out, 'utf8')) as SqliteInspection
  } finally {
    await rm(out, { force: true })
  }
}
