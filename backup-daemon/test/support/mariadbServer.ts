/**
 * @module test/support/mariadbServer
 * A throwaway MariaDB server from Debian's `mariadb-server`: `mariadb-install-db` into a temp folder,
 * then `mariadbd` on a free TCP port of 127.0.0.1 with its socket in the same folder (as root it runs
 * with `--user=root`, as anyone else as themselves). Root logs in over the socket without a password;
 * a `backup` user with a password is created for the TCP path, so tests can check credentials.
 * `startMariadbWith` also creates a database and fills it.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { mkdir, mkdtemp, readFile } from 'node:fs/promises'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { freePort } from './freePort.js'
import { stopServer } from './stopServer.js'

const run = promisify(execFile)
/** The machine's temp folder as it was when this module loaded (tests may point TMPDIR elsewhere later). */
const baseTmp = tmpdir()

export interface MariadbServer {
  dir: string
  socket: string
  port: number
  /** `backup`, with every privilege, over TCP with `password`. */
  username: string
  password: string
  version: string
  /** The server process (its pid is not a leftover of the code under test). */
  pid: number
  /** Runs SQL as root over the socket; returns tab-separated rows without column names. */
  sql(statement: string, database?: string): Promise<string>
  stop(): Promise<void>
}

export async function startMariadbServer(): Promise<MariadbServer> {
  const dir = await mkdtemp(join(baseTmp, 'bd-mariadb-'))
  const data = join(dir, 'data')
  const socket = join(dir, 'mysqld.sock')
  const serverTmp = join(dir, 'tmp')
  await mkdir(serverTmp)
  const user = userInfo().username
  await run('mariadb-install-db', ['--no-defaults', `--datadir=${data}`, `--user=${user}`, '--auth-root-authentication-method=normal', '--skip-test-db'])
  const port = await freePort()
  const server: ChildProcess = spawn(
    '/usr/sbin/mariadbd',
    [
      '--no-defaults',
      `--datadir=${data}`,
      `--socket=${socket}`,
      `--port=${port}`,
      '--bind-address=127.0.0.1',
      '--skip-networking=0',
      `--user=${user}`,
      `--tmpdir=${serverTmp}`,
      `--pid-file=${join(dir, 'mysqld.pid')}`,
      `--log-error=${join(dir, 'error.log')}`,
      '--innodb-buffer-pool-size=32M',
      '--innodb-log-file-size=16M',
      '--skip-log-bin',
      '--innodb-flush-log-at-trx-commit=0',
    ],
    { stdio: 'ignore', env: { ...process.env, TMPDIR: serverTmp } },
  )
  const sql = async (statement: string, database?: string) => {
    const { stdout } = await run(
      'mariadb',
      [
        '--no-defaults',
        `--socket=${socket}`,
        '--user=root',
        '--default-character-set=utf8mb4',
        '--batch',
        '--skip-column-names',
        ...(database ? [`--database=${database}`] : []),
        '-e',
        statement,
      ],
      { maxBuffer: 64 << 20 },
    )
    return stdout.trim()
  }
  let ready = false
  for (let attempt = 0; attempt < 300 && server.exitCode === null; attempt++) {
    if (
      await sql('SELECT 1').then(
        () => true,
        () => false,
      )
    ) {
      ready = true
      break
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  if (!ready) {
    const log = await readFile(join(dir, 'error.log'), 'utf8').catch(() => '')
    await stopServer(server, dir, 'SIGKILL')
    throw new Error(`mariadbd did not start: ${log.slice(-2000)}`)
  }
  const password = 'Maria-test-Secret-42'
  await sql(`CREATE USER 'backup'@'127.0.0.1' IDENTIFIED BY '${password}'; GRANT ALL ON *.* TO 'backup'@'127.0.0.1'`)
  const version = await sql('SELECT VERSION()')
  return {
    dir,
    socket,
    port,
    username: 'backup',
    password,
    version,
    pid: server.pid!,
    sql,
    stop: () => stopServer(server, dir, 'SIGKILL'),
  }
}

/** A server holding database `database`, filled by `statements` run in it in order (the server stopped if one fails). */
export async function startMariadbWith(database: string, statements: string[]): Promise<MariadbServer> {
  const server = await startMariadbServer()
  try {
    await server.sql(`CREATE DATABASE ${database}`)
    await server.sql(statements.join(';\n'), database)
    return server
  } catch (err) {
    await server.stop()
    throw err
  }
}
