/**
 * @module bench/support/dumpServers
 * Throwaway database servers for the dump benchmarks, started the way the daemon's tests start theirs
 * (`backup-daemon/test/sources/support/postgresCluster.ts`, `test/support/{mariadb,redis}Server.ts`):
 * a PostgreSQL cluster (`initdb` + `pg_ctl` of Debian's `postgresql`, as `postgres` when root), a
 * `mariadbd` (`mariadb-server`) and a `redis-server`, each in a temp folder on a free port, their unix
 * socket beside it. A missing binary fails the bench with the package to install.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { chmod, chown, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)
const big = { maxBuffer: 256 << 20 }

export interface DumpServer {
  /** Where its socket (and data) live. */
  dir: string
  port: number
  stop(): Promise<void>
}

export interface PostgresServer extends DumpServer {
  bin: string
  /** SQL over the socket as `postgres`; unaligned, tuples only. */
  sql(database: string, statement: string): Promise<string>
}

export interface MariadbServer extends DumpServer {
  socket: string
  sql(statement: string, database?: string): Promise<string>
}

export interface RedisServer extends DumpServer {
  socket: string
  cli(...args: string[]): Promise<string>
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

async function waitFor(ready: () => Promise<boolean>, child: ChildProcess | undefined, what: string): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt++) {
    if (child && child.exitCode !== null) break
    if (await ready().catch(() => false)) return
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`${what} did not start`)
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    child.once('exit', () => resolve())
    child.kill('SIGKILL')
  })
}

export async function startPostgres(): Promise<PostgresServer> {
  const versions = (await readdir('/usr/lib/postgresql').catch(() => [] as string[])).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a))
  const bin = versions.map((v) => `/usr/lib/postgresql/${v}/bin`)[0]
  if (!bin) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql/*/bin (apt-get install -y postgresql)')
  const root = userInfo().uid === 0
  const asServer = (command: string, args: string[]) => (root ? run('runuser', ['-u', 'postgres', '--', command, ...args]) : run(command, args))
  const dir = await mkdtemp(join(tmpdir(), 'bench-pg-'))
  await chmod(dir, 0o755)
  if (root) await chown(dir, Number((await run('id', ['-u', 'postgres'])).stdout), Number((await run('id', ['-g', 'postgres'])).stdout))
  const data = join(dir, 'data')
  await asServer(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth-local=trust', '--no-sync', '-E', 'UTF8'])
  const port = await freePort()
  const options = `-p ${port} -k ${dir} -c listen_addresses='' -c fsync=off -c full_page_writes=off -c max_wal_size=4GB`
  await asServer(join(bin, 'pg_ctl'), ['-D', data, '-o', options, '-l', join(dir, 'server.log'), '-w', '-t', '60', 'start'])
  const sql = async (database: string, statement: string) =>
    (
      await run(
        join(bin, 'psql'),
        ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-h', dir, '-p', String(port), '-U', 'postgres', '-d', database, '-c', statement],
        big,
      )
    ).stdout.trim()
  return {
    bin,
    dir,
    port,
    sql,
    stop: async () => {
      await asServer(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {})
      await rm(dir, { recursive: true, force: true })
    },
  }
}

export async function startMariadb(): Promise<MariadbServer> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-mariadb-'))
  const data = join(dir, 'data')
  const socket = join(dir, 'mysqld.sock')
  await mkdir(join(dir, 'tmp'))
  const user = userInfo().username
  await run('mariadb-install-db', ['--no-defaults', `--datadir=${data}`, `--user=${user}`, '--auth-root-authentication-method=normal', '--skip-test-db']).catch(
    (err: Error) => {
      throw new Error(`mariadb-install-db failed (apt-get install mariadb-server): ${err.message}`)
    },
  )
  const port = await freePort()
  const server = spawn(
    '/usr/sbin/mariadbd',
    [
      '--no-defaults',
      `--datadir=${data}`,
      `--socket=${socket}`,
      `--port=${port}`,
      '--bind-address=127.0.0.1',
      `--user=${user}`,
      `--tmpdir=${join(dir, 'tmp')}`,
      `--log-error=${join(dir, 'error.log')}`,
      '--innodb-buffer-pool-size=256M',
      '--innodb-log-file-size=256M',
      '--skip-log-bin',
      '--innodb-flush-log-at-trx-commit=0',
    ],
    { stdio: 'ignore' },
  )
  const sql = async (statement: string, database?: string) =>
    (
      await run(
        'mariadb',
        [
          '--no-defaults',
          `--socket=${socket}`,
          '--user=root',
          '--batch',
          '--skip-column-names',
          ...(database ? [`--database=${database}`] : []),
          '-e',
          statement,
        ],
        big,
      )
    ).stdout.trim()
  await waitFor(() => sql('SELECT 1').then(() => true), server, 'mariadbd')
  return {
    dir,
    port,
    socket,
    sql,
    stop: async () => {
      await stopChild(server)
      await rm(dir, { recursive: true, force: true })
    },
  }
}

/** `compression`: the server's `rdbcompression` (LZF on the RDB's strings), which `CONFIG SET` changes later. */
export async function startRedis(compression: boolean): Promise<RedisServer> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-redis-'))
  const port = await freePort()
  const socket = join(dir, 'redis.sock')
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--unixsocket', socket, '--save', '', '--appendonly', 'no', '--dir', dir]
  const server = spawn('/usr/bin/redis-server', [...args, '--rdbcompression', compression ? 'yes' : 'no', '--logfile', join(dir, 'redis.log')], {
    stdio: 'ignore',
  })
  server.once('error', () => {})
  const cli = async (...command: string[]) => (await run('redis-cli', ['-s', socket, ...command], big)).stdout.trim()
  await waitFor(() => cli('PING').then((out) => out === 'PONG'), server, 'redis-server (apt-get install redis-server)')
  return {
    dir,
    port,
    socket,
    cli,
    stop: async () => {
      await stopChild(server)
      await rm(dir, { recursive: true, force: true })
    },
  }
}
