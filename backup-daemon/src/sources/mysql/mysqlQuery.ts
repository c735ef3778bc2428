/**
 * @module sources/mysql/mysqlQuery
 * Runs SQL through the `mariadb`/`mysql` client and returns its rows (tab-separated `--batch` output,
 * unescaped). Used by the restore drill (`drill.ts`) to create, count and drop; the password travels in
 * `MYSQL_PWD` only, as for the dump.
 */
import { spawnOwned } from '../support/spawnOwned.js'
import { findExecutable } from '../support/findExecutable.js'
import { tail } from '../support/runChild.js'
import { mysqlConnectionArgs, mysqlEnv } from './mysqlDumpArgs.js'
import type { MysqlConnection } from './restoreMysql.js'

/** A SQL identifier in backquotes (a backquote inside is doubled). */
export const quoteMysqlName = (name: string) => '`' + name.replace(/`/g, '``') + '`'
/** A SQL string literal. */
export const quoteMysqlString = (value: string) => "'" + value.replace(/\\/g, '\\\\').replace(/'/g, "''") + "'"

/** `--batch` escapes `\t`, `\n`, `\\` and NUL in values. */
const unescape = (value: string) => value.replace(/\\([tn0\\])/g, (_m, c: string) => ({ t: '\t', n: '\n', '0': '\0', '\\': '\\' })[c]!)

export async function findMysqlClient(): Promise<string> {
  const client = await findExecutable(['mariadb', 'mysql'])
  if (!client) throw new Error('neither mariadb nor mysql (the client) found on PATH (Debian: apt-get install mariadb-client)')
  return client
}

/** The rows `sql` returns (none for a statement without a result); rejects with the client's last stderr lines. */
export async function mysqlQuery(connection: MysqlConnection, sql: string, signal: AbortSignal): Promise<string[][]> {
  const client = await findMysqlClient()
  const args = [
    ...mysqlConnectionArgs({ host: connection.host ?? '127.0.0.1', port: connection.port ?? 3306, socket: connection.socket, username: connection.username }),
    '--batch',
    '--skip-column-names',
    '-e',
    sql,
  ]
  return new Promise((resolve, reject) => {
    signal.throwIfAborted()
    const child = spawnOwned(client, args, { env: mysqlEnv(connection.password), stdio: ['ignore', 'pipe', 'pipe'] })
    const chunks: Buffer[] = []
    const stderr = tail(5)
    child.stdout!.on('data', (chunk: Buffer) => chunks.push(chunk))
    child.stderr!.on('data', stderr.push)
    const onAbort = () => child.kill('SIGKILL')
    signal.addEventListener('abort', onAbort, { once: true })
    child.once('error', reject)
    child.once('close', (code) => {
      signal.removeEventListener('abort', onAbort)
      if (signal.aborted) return reject(signal.reason)
      if (code !== 0) return reject(new Error(stderr.text() || `${client.split('/').pop()} exited with ${code}`))
      const text = Buffer.concat(chunks).toString('utf8')
      resolve(
        text
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => line.split('\t').map(unescape)),
      )
    })
  })
}
