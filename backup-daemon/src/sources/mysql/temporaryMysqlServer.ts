/**
 * @module sources/mysql/temporaryMysqlServer
 * A throwaway MariaDB/MySQL server for a restore drill (`databaseServer: temporary`), from the installed
 * binaries: `mariadb-install-db` (or `mysql_install_db`) into a folder of the drill's scratch space, then
 * `mariadbd` (or `mysqld`) with `--skip-networking` and its unix socket in that folder, so nothing outside
 * the daemon's user can reach it. Root logs in over the socket without a password. Its pid is recorded
 * (`support/scratchServer`) so a killed drill's server is stopped at the next start.
 */
import type { ChildProcess } from 'node:child_process'
import { mkdir, readFile } from 'node:fs/promises'
import { userInfo } from 'node:os'
import { delimiter, join } from 'node:path'
import { spawnOwned } from '../support/spawnOwned.js'
import { findExecutable } from '../support/findExecutable.js'
import { runChild } from '../support/runChild.js'
import { killScratchServer, recordScratchServer } from '../support/scratchServer.js'
import { mysqlQuery } from './mysqlQuery.js'
import type { MysqlConnection } from './restoreMysql.js'

export interface TemporaryMysqlServer {
  /** Root over the socket. */
  connection: MysqlConnection
  stop(): Promise<void>
}

/** A unix socket path longer than this does not fit `sockaddr_un` (108 bytes with its NUL). */
const socketPathLimit = 100
/** Servers live in sbin, which a daemon's PATH may lack. */
const searchPath = [process.env.PATH ?? '', '/usr/sbin', '/usr/local/sbin', '/usr/bin'].join(delimiter)

export async function startTemporaryMysqlServer(dir: string, signal: AbortSignal): Promise<TemporaryMysqlServer> {
  const installDb = await findExecutable(['mariadb-install-db', 'mysql_install_db'], searchPath)
  const daemon = await findExecutable(['mariadbd', 'mysqld'], searchPath)
  if (!installDb || !daemon) {
    throw new Error(
      'a temporary MariaDB/MySQL server needs mariadb-install-db and mariadbd (Debian: apt-get install mariadb-server); or use databaseServer: configured',
    )
  }
  const data = join(dir, 'data')
  const socket = join(dir, 'mysqld.sock')
  if (socket.length > socketPathLimit) throw new Error(`the temporary server's socket path is too long (${socket.length} characters): use a shorter dataDir`)
  const tmp = join(dir, 'tmp')
  await mkdir(tmp, { recursive: true })
  const user = userInfo().username
  await runChild(installDb, ['--no-defaults', `--datadir=${data}`, `--user=${user}`, '--auth-root-authentication-method=normal', '--skip-test-db'], {
    signal,
    env: { ...process.env, TMPDIR: tmp },
  }).catch((err: Error) => {
    throw signal.aborted ? signal.reason : new Error(`${installDb.split('/').pop()} failed: ${err.message}`)
  })
  const log = join(dir, 'error.log')
  const child: ChildProcess = spawnOwned(
    daemon,
    [
      '--no-defaults',
      `--datadir=${data}`,
      `--socket=${socket}`,
      '--skip-networking',
      `--user=${user}`,
      `--tmpdir=${tmp}`,
      `--pid-file=${join(dir, 'mysqld.pid')}`,
      `--log-error=${log}`,
      '--innodb-buffer-pool-size=64M',
      '--skip-log-bin',
      '--innodb-flush-log-at-trx-commit=0',
    ],
    { stdio: 'ignore', env: { ...process.env, TMPDIR: tmp } },
  )
  const stop = () => killScratchServer(child)
  try {
    await recordScratchServer(dir, child)
    const connection: MysqlConnection = { socket, username: 'root' }
    for (let attempt = 0; ; attempt++) {
      signal.throwIfAborted()
      if (child.exitCode !== null || child.signalCode !== null || attempt >= 600) {
        const lines = (await readFile(log, 'utf8').catch(() => '')).trim().split('\n').slice(-5).join(' | ')
        throw new Error(`the temporary ${daemon.split('/').pop()} did not start: ${lines || '(no log)'}`)
      }
      if (
        await mysqlQuery(connection, 'SELECT 1', signal).then(
          () => true,
          () => false,
        )
      )
        break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    return { connection, stop }
  } catch (err) {
    await stop()
    throw err
  }
}
