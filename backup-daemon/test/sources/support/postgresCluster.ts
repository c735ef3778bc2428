/**
 * @module test/sources/support/postgresCluster
 * A throwaway PostgreSQL cluster from Debian's packages (`postgresql`): `initdb` in a temp folder,
 * `pg_ctl start` on a free TCP port of 127.0.0.1 with its unix socket in the same folder, run as the
 * `postgres` user when the tests run as root (the server refuses root). Local socket connections are
 * trusted; TCP ones need the password (scram), so tests can check the password path.
 */
import { execFile } from 'node:child_process'
import { chmod, chown, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { freePort } from '../../support/freePort.js'

const run = promisify(execFile)

export interface PostgresCluster {
  bin: string
  socketDir: string
  port: number
  superuser: string
  password: string
  /** Runs SQL through psql over the socket as the superuser; returns unaligned, tuples-only output. */
  sql(database: string, statement: string): Promise<string>
  stop(): Promise<void>
}

/** Why a PostgreSQL test cannot run here: what `requirePostgresBin` throws (such a test fails, it is never skipped). */
export const postgresMissing = 'no PostgreSQL server binaries under /usr/lib/postgresql/*/bin (apt-get install -y postgresql)'

/** The server binaries' folder (`findPostgresBin`); an error naming the package when there are none. */
export async function requirePostgresBin(): Promise<string> {
  const bin = await findPostgresBin()
  if (!bin) throw new Error(postgresMissing)
  return bin
}

/** The newest `/usr/lib/postgresql/<version>/bin` that has initdb, or undefined. */
export async function findPostgresBin(): Promise<string | undefined> {
  const versions = await readdir('/usr/lib/postgresql').catch(() => [] as string[])
  const sorted = versions.filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a))
  for (const version of sorted) {
    const bin = `/usr/lib/postgresql/${version}/bin`
    if ((await readdir(bin).catch(() => [] as string[])).includes('initdb')) return bin
  }
  return undefined
}

/** A cluster of the newest server binaries; without any, the error of `requirePostgresBin`. */
export async function startPostgres(): Promise<PostgresCluster> {
  return startPostgresCluster(await requirePostgresBin())
}

export async function startPostgresCluster(bin: string): Promise<PostgresCluster> {
  const root = userInfo().uid === 0
  // As root, the server runs as `postgres`, so its folder must be theirs.
  const asServer = (command: string, args: string[]) => (root ? run('runuser', ['-u', 'postgres', '--', command, ...args]) : run(command, args))
  const dir = await mkdtemp(join(tmpdir(), 'bd-pg-'))
  await chmod(dir, 0o755)
  const data = join(dir, 'data')
  const password = 'pg-test-Secret-42'
  const superuser = 'postgres'
  const pwfile = join(dir, 'pwfile')
  await writeFile(pwfile, password + '\n', { mode: 0o600 })
  if (root) {
    const { stdout } = await run('id', ['-u', 'postgres'])
    const { stdout: gid } = await run('id', ['-g', 'postgres'])
    await chown(dir, Number(stdout), Number(gid))
    await chown(pwfile, Number(stdout), Number(gid))
  }
  await asServer(join(bin, 'initdb'), [
    '-D',
    data,
    '-U',
    superuser,
    '--auth-local=trust',
    '--auth-host=scram-sha-256',
    `--pwfile=${pwfile}`,
    '--no-sync',
    '-E',
    'UTF8',
  ])
  const port = await freePort()
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`
  await asServer(join(bin, 'pg_ctl'), ['-D', data, '-o', options, '-l', join(dir, 'server.log'), '-w', '-t', '60', 'start'])
  let stopped = false
  return {
    bin,
    socketDir: dir,
    port,
    superuser,
    password,
    sql: async (database, statement) => {
      const { stdout } = await run(join(bin, 'psql'), [
        '-X',
        '-q',
        '-A',
        '-t',
        '-v',
        'ON_ERROR_STOP=1',
        '-h',
        dir,
        '-p',
        String(port),
        '-U',
        superuser,
        '-d',
        database,
        '-c',
        statement,
      ])
      return stdout.trim()
    },
    stop: async () => {
      if (stopped) return
      stopped = true
      await asServer(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {})
      await rm(dir, { recursive: true, force: true })
    },
  }
}
