/**
 * @module sources/mysql/restoreMysql
 * Loads a `mysql`/`mariadb` source's dump (plain SQL from `mariadb-dump`/`mysqldump`) into a server
 * with the `mariadb` client (falling back to `mysql`), fed on its stdin. The password goes in
 * `MYSQL_PWD` (never on the command line). The client stops at the first failing statement.
 *
 * A single-database dump holds no `CREATE DATABASE`: it is loaded into `database`, created when
 * missing. Without `overwrite` the target must hold no tables (the dump's `DROP TABLE IF EXISTS`
 * would silently replace them); an all-databases dump names its own databases and needs `overwrite`.
 * A single-database dump never leaves its target: a `USE other`, `CREATE DATABASE` or client command
 * in it stops the restore before that statement (`sources/mysql/confineMysqlDump`).
 */
import type { Readable } from 'node:stream'
import { spawnOwned } from '../support/spawnOwned.js'
import { findExecutable } from '../support/findExecutable.js'
import { runChild, tail } from '../support/runChild.js'
import { confineMysqlDump } from './confineMysqlDump.js'
import { feedCommand } from '../support/feedCommand.js'
import { mysqlConnectionArgs, mysqlEnv } from './mysqlDumpArgs.js'

export interface MysqlConnection {
  /** The database to load a single-database dump into; absent for an all-databases dump. */
  database?: string
  /** @default "127.0.0.1" */
  host?: string
  socket?: string
  /** @default 3306 */
  port?: number
  username?: string
  password?: string
}

export interface RestoreMysqlOptions {
  /** Load even when the target database already holds tables (the dump drops and recreates its own). @default false */
  overwrite?: boolean
  /** The client binary. @default "mariadb", else "mysql" on PATH */
  client?: string
  signal?: AbortSignal
}

/** A SQL identifier in backquotes (a backquote inside is doubled). */
const quoteIdentifier = (name: string) => '`' + name.replace(/`/g, '``') + '`'
/** A SQL string literal. */
const quoteString = (value: string) => "'" + value.replace(/\\/g, '\\\\').replace(/'/g, "''") + "'"

/**
 * @example
 * await restoreMysql(entryStream, { database: 'shop', host: 'db', username: 'root', password }, { overwrite: true })
 */
export async function restoreMysql(dump: Readable, connection: MysqlConnection, options: RestoreMysqlOptions = {}): Promise<void> {
  const signal = options.signal ?? new AbortController().signal
  const client = options.client ?? (await findExecutable(['mariadb', 'mysql']))
  if (!client) {
    dump.destroy()
    throw new Error('neither mariadb nor mysql (the client) found on PATH (Debian: apt-get install mariadb-client)')
  }
  const base = [
    ...mysqlConnectionArgs({ host: connection.host ?? '127.0.0.1', port: connection.port ?? 3306, socket: connection.socket, username: connection.username }),
    '--batch',
    '--skip-column-names',
  ]
  const env = mysqlEnv(connection.password)
  const label = client.split('/').pop()!
  try {
    if (connection.database) {
      const db = connection.database
      await runChild(client, [...base, '-e', `CREATE DATABASE IF NOT EXISTS ${quoteIdentifier(db)}`], { env, signal }).catch(rename(label))
      if (!options.overwrite) {
        const tables = await query(
          client,
          [...base, '-e', `SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = ${quoteString(db)}`],
          env,
          signal,
        )
        if (Number(tables) > 0) throw new Error(`database "${db}" already holds ${tables} table(s); overwrite replaces the dumped ones`)
      }
    } else if (!options.overwrite) {
      throw new Error('an all-databases dump replaces the tables of every database it holds; restore it with overwrite')
    }
  } catch (err) {
    dump.destroy()
    throw err
  }
  // `--binary-mode`: a dump may hold any bytes in its strings; take them as they are. A single-database
  // dump is confined to its target: statements that switch database are refused before the client sees
  // them (`confineMysqlDump`). (The client's `--one-database` is no help: with `--database=` it skipped
  // every statement of a plain dump here.)
  const args = [...base, '--binary-mode', ...(connection.database ? [`--database=${connection.database}`] : [])]
  let input = dump
  if (connection.database) {
    const confined = confineMysqlDump(connection.database)
    dump.once('error', (err) => confined.destroy(err))
    input = dump.pipe(confined)
  }
  await feedCommand(client, args, input, { env, signal, label })
}

function rename(label: string) {
  return (err: Error) => {
    throw new Error(err.message.replace(/^\S+ exited/, `${label} exited`), { cause: err })
  }
}

/** Runs one query and returns its single value. */
function query(client: string, args: string[], env: NodeJS.ProcessEnv, signal: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawnOwned(client, args, { env, stdio: ['ignore', 'pipe', 'pipe'], signal })
    let out = ''
    const stderr = tail(5)
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')))
    child.stderr!.on('data', stderr.push)
    child.once('error', reject)
    child.once('close', (code) =>
      code === 0 ? resolve(out.trim()) : reject(new Error(`${client.split('/').pop()} exited with ${code}: ${stderr.text() || '(no output)'}`)),
    )
  })
}
