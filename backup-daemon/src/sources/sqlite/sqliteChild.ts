/**
 * @module sources/sqlite/sqliteChild
 * Reads a SQLite file in a child Node process, for `inspectSqlite` (tables, row counts, integrity) and
 * `readRestoredSqlite` (a restored database's tables and rows): the binding is synchronous, so a large
 * read would otherwise hold the daemon's event loop, and a child can be killed on cancel. The child opens
 * the file read-only (it must exist), runs the caller's read on it and hands back JSON through a file
 * `<file>.<random>.json` beside it, removed after.
 */
import { randomBytes } from 'node:crypto'
import { readFile, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { runChild } from '../support/runChild.js'

/**
 * The child's script around `read`, the body of a function of `db` (the open database) and `arg` (a
 * string) that returns what to hand back. CommonJS on purpose: it runs with `node -e`, without this
 * package's TypeScript loader.
 */
const script = (read: string) => `
const [libsql, file, out, arg] = process.argv.slice(1)
const Database = require(libsql)
const read = (db, arg) => {${read}}
try {
  const db = new Database(file, { readonly: true, fileMustExist: true })
  try {
    require('node:fs').writeFileSync(out, JSON.stringify(read(db, arg)))
  } finally {
    db.close()
  }
} catch (err) {
  process.stderr.write(String((err && err.message) || err))
  process.exit(1)
}
`

/** Runs `read` (see `script`) on `file` with `arg` in a child; a failure says `reading <what> failed: <the child's error>`. */
export async function readSqliteInChild<T>(file: string, read: string, arg: string, options: { what: string; signal: AbortSignal }): Promise<T> {
  const libsql = createRequire(import.meta.url).resolve('libsql')
  const out = `${file}.${randomBytes(4).toString('hex')}.json`
  try {
    await runChild(process.execPath, ['--input-type=commonjs', '-e', script(read), libsql, file, out, arg], { signal: options.signal, tailLines: 3 }).catch(
      (err: Error) => {
        if (options.signal.aborted) throw options.signal.reason
        throw new Error(`reading ${options.what} failed: ${err.message.replace(/^node exited with \d+: /, '')}`)
      },
    )
    return JSON.parse(await readFile(out, 'utf8')) as T
  } finally {
    await rm(out, { force: true })
  }
}
