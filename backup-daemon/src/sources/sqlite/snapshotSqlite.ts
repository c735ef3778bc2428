/**
 * @module sources/sqlite/snapshotSqlite
 * A consistent copy of a live SQLite database with `VACUUM INTO`: one read transaction, so the copy
 * is the database as of one instant while other processes keep writing (in WAL mode they are never
 * blocked; in rollback-journal mode their commits wait, up to their busy timeout, until it ends).
 *
 * It runs in a child Node process: the binding (libsql, a better-sqlite3-compatible build that
 * installs from npm) is synchronous, so in-process it would freeze the daemon's event loop for the
 * whole copy, and a worker thread cannot be stopped while inside native code; a process can (SIGKILL).
 */
import { stat } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { runChild } from '../support/runChild.js'

// CommonJS on purpose: runs with `node -e`, without this package's TypeScript loader.
const script = `
const [libsql, source, target] = process.argv.slice(1)
const Database = require(libsql)
try {
  const db = new Database(source)
  try {
    db.exec('PRAGMA busy_timeout = 60000')
    db.prepare('VACUUM INTO ?').run(target)
  } finally {
    db.close()
  }
} catch (err) {
  process.stderr.write(String((err && err.message) || err))
  process.exit(1)
}
`

/** Writes a consistent copy of `source` to `target` (which must not exist). */
export async function snapshotSqlite(source: string, target: string, signal: AbortSignal): Promise<void> {
  // Opening a missing path would create an empty database: refuse instead.
  const info = await stat(source)
  if (!info.isFile()) throw new Error(`${source} is not a file`)
  const libsql = createRequire(import.meta.url).resolve('libsql')
  await runChild(process.execPath, ['--input-type=commonjs', '-e', script, libsql, source, target], { signal, tailLines: 3 }).catch((err: Error) => {
    if (signal.aborted) throw signal.reason
    throw new Error(`sqlite snapshot of ${source} failed: ${err.message.replace(/^node exited with \d+: /, '')}`)
  })
}
