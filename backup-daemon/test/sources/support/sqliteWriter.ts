/**
 * @module test/sources/support/sqliteWriter
 * A separate process that writes to a SQLite database without pause: each transaction inserts a row
 * `+k` and a row `-k`, so in any consistent state `SUM(n) = 0` and the row count is even. A torn copy
 * (half a transaction, pages of different instants) breaks one of them or the integrity check.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createRequire } from 'node:module'

const libsql = createRequire(import.meta.url).resolve('libsql')

const script = `
const [libsql, path, journal, pause] = process.argv.slice(1)
const Database = require(libsql)
const db = new Database(path)
db.exec('PRAGMA busy_timeout = 60000')
db.exec('PRAGMA journal_mode = ' + journal)
db.exec('CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, n INTEGER NOT NULL, pad BLOB)')
const insert = db.prepare('INSERT INTO t (n, pad) VALUES (?, randomblob(200))')
const pair = db.transaction((k) => { insert.run(k); insert.run(-k) })
db.exec('BEGIN')
for (let i = 0; i < 20000; i++) { insert.run(i + 1); insert.run(-(i + 1)) }
db.exec('COMMIT')
process.stdout.write('ready\\n')
let k = 10000
// A pause between transactions, as real writers have: in rollback-journal mode a reader needs a gap
// (SQLite's busy handler retries at intervals of up to 100 ms, so a writer that never stops starves it).
const gap = new Int32Array(new SharedArrayBuffer(4))
for (;;) { pair(k++); Atomics.wait(gap, 0, 0, Number(pause)) }
`

export interface SqliteWriter {
  stop(): Promise<void>
}

/** Creates (if needed) and fills the database, then keeps writing until `stop()`. */
export async function startSqliteWriter(path: string, journal: 'WAL' | 'DELETE'): Promise<SqliteWriter> {
  const child: ChildProcess = spawn(process.execPath, ['--input-type=commonjs', '-e', script, libsql, path, journal, journal === 'WAL' ? '1' : '25'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`writer exited early (${code})`)))
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve()
    })
  })
  return {
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGKILL')
      await once(child, 'exit')
    },
  }
}
