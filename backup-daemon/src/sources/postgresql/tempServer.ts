/**
 * @module sources/postgresql/tempServer
 * A throwaway PostgreSQL server from the installed binaries, for a restore drill with
 * `databaseServer: temporary` (and for tests): `initdb` into a scratch folder, `postgres` started as the
 * daemon's own child (it dies with the daemon: `support/spawnOwned`) with no TCP
 * at all (`listen_addresses=''`) and its unix socket in a private folder of the system temp folder (a
 * socket path must stay under ~100 bytes, which a drill's scratch path may not), trusted local connections
 * for the superuser `postgres` (only the daemon's user can reach the folder), no fsync (nothing is kept).
 * As root the server runs as the `postgres` user (it refuses root), and its data folder is in the private
 * temp folder too (owned by them: the drill's scratch folders are root's alone). A note
 * (`support/scratchProcess`) lets the next start stop a server a killed daemon left running.
 */
import { execFile, type ChildProcess } from 'node:child_process'
import { closeSync, openSync } from 'node:fs'
import { chown, mkdir, mkdtemp, readdir, readFile, realpath, rm } from 'node:fs/promises'
import { tmpdir, userInfo } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { runChild } from '../support/runChild.js'
import { noteScratchProcess, scratchProcessSuffix, scratchTempPrefix } from '../support/scratchProcess.js'
import { spawnOwned } from '../support/spawnOwned.js'

const run = promisify(execFile)

/** What a temporary server needs: the server's own programs and the clients of the same version. */
export const serverBinaries = ['initdb', 'postgres', 'pg_restore', 'psql'] as const

/**
 * The folder holding every `serverBinaries`: beside `preferred` (a configured pg_dump) first, then the newest
 * Debian `/usr/lib/postgresql/<version>/bin`. Throws naming what is missing where it looked.
 */
export async function findPostgresBin(preferred?: string, debianRoot = '/usr/lib/postgresql'): Promise<string> {
  const versions = await readdir(debianRoot).catch(() => [] as string[])
  const debian = versions
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a))
    .map((v) => `${debianRoot}/${v}/bin`)
  const candidates = [...(preferred ? [dirname(preferred)] : []), ...debian]
  let closest: { dir: string; missing: string[] } | undefined
  for (const dir of candidates) {
    const present = new Set(await readdir(dir).catch(() => [] as string[]))
    const missing = serverBinaries.filter((name) => !present.has(name))
    if (missing.length === 0) return dir
    if (!closest || missing.length < closest.missing.length) closest = { dir, missing }
  }
  const where = closest ? `${closest.missing.join(', ')} not in ${closest.dir}` : `${serverBinaries.join(', ')}: no ${debianRoot}/<version>/bin`
  throw new Error(
    `a temporary PostgreSQL server needs the server binaries (${where}): install the server package (postgresql) or drill on the configured server`,
  )
}

export interface TempPostgres {
  bin: string
  /** The socket folder: the `host` to connect to. */
  socketDir: string
  port: number
  /** The superuser (trusted over the socket). */
  user: string
  /** Fast shutdown (SIGINT, waiting for the process to end; SIGKILL after 60 s), then its folders removed. Idempotent. */
  stop(): Promise<void>
}

export interface StartTempPostgresOptions {
  bin: string
  /** A folder of the drill's scratch space: the data folder (unless root) and the crash note go here. */
  scratch: string
  signal: AbortSignal
  log?(message: string): void
}

/** The `postgres` user's uid and gid, when running as root (undefined otherwise). */
async function serverOwner(): Promise<{ uid: number; gid: number } | undefined> {
  if (userInfo().uid !== 0) return undefined
  try {
    const [{ stdout: uid }, { stdout: gid }] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])])
    return { uid: Number(uid), gid: Number(gid) }
  } catch {
    throw new Error('running as root, a temporary PostgreSQL server needs the "postgres" user (the server refuses to run as root)')
  }
}

export async function startTempPostgres({ bin, scratch, signal, log }: StartTempPostgresOptions): Promise<TempPostgres> {
  const owner = await serverOwner()
  const asServer = (command: string, args: string[], s: AbortSignal) =>
    owner ? runChild('runuser', ['-u', 'postgres', '--', join(bin, command), ...args], { signal: s }) : runChild(join(bin, command), args, { signal: s })
  const socketDir = await mkdtemp(join(tmpdir(), scratchTempPrefix))
  const data = owner ? join(socketDir, 'data') : join(scratch, 'pgdata')
  const port = 5432 // only names the socket file, in a folder of its own
  let server: ChildProcess | undefined
  let stopped: Promise<void> | undefined
  const stop = () =>
    (stopped ??= (async () => {
      // Not the drill's signal: a cancelled drill still stops its server.
      if (server) await stopServer(server, log)
      await rm(socketDir, { recursive: true, force: true })
      if (!owner) await rm(data, { recursive: true, force: true })
      await rm(join(scratch, `postgres${scratchProcessSuffix}`), { force: true })
    })())
  try {
    if (owner) await chown(socketDir, owner.uid, owner.gid)
    else await mkdir(data, { mode: 0o700 })
    await asServer('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--no-instructions'], signal)
    // The server itself is the daemon's child (not pg_ctl's, which would leave it to init): it gets SIGINT, a
    // fast shutdown, when the daemon dies (`spawnOwned`), and its exit is seen here.
    const args = ['-D', data, '-k', socketDir, '-p', String(port), '-c', 'listen_addresses=', '-c', 'fsync=off', '-c', 'full_page_writes=off']
    args.push('-c', 'synchronous_commit=off')
    const logFile = join(data, 'server.log')
    const logFd = openSync(logFile, 'a', 0o600)
    try {
      const user = owner ? { uid: owner.uid, gid: owner.gid } : {}
      server = spawnOwned(join(bin, 'postgres'), args, { cwd: data, stdio: ['ignore', logFd, logFd], deathSignal: 'SIGINT', ...user })
    } finally {
      closeSync(logFd)
    }
    // A drill that forgets to stop it must not keep a command alive; the death signal ends it with the process.
    server.unref()
    await whenReady(server, data, logFile, signal)
    const pid = server.pid!
    await noteScratchProcess(scratch, 'postgres', { pid, command: await realpath(join(bin, 'postgres')), signal: 'SIGINT', remove: [socketDir] })
    log?.(`started a temporary PostgreSQL server (${bin}, pid ${pid}, socket only)`)
    return { bin, socketDir, port, user: 'postgres', stop }
  } catch (err) {
    await stop()
    throw err
  }
}

const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null

/** Resolves once `postmaster.pid` says `ready` (PostgreSQL 10+); rejects with the log's end if the server exits first, or after 60 s. */
async function whenReady(server: ChildProcess, data: string, logFile: string, signal: AbortSignal): Promise<void> {
  const deadline = Date.now() + 60_000
  for (;;) {
    signal.throwIfAborted()
    const status = (await readFile(join(data, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n')[7]?.trim()
    if (status === 'ready' && !exited(server)) return
    if (exited(server) || Date.now() > deadline) {
      const lines = (await readFile(logFile, 'utf8').catch(() => '')).trim().split('\n').slice(-3).join(' | ')
      const why = exited(server) ? `exited (${server.signalCode ?? `code ${server.exitCode}`})` : 'was not ready within 60 s'
      throw new Error(`the temporary PostgreSQL server ${why}: ${lines || '(no log)'}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Fast shutdown (SIGINT), waiting for the process to end; SIGKILL after 60 s. Polls: the child is unref'd. */
async function stopServer(server: ChildProcess, log?: (message: string) => void): Promise<void> {
  if (exited(server)) return
  server.kill('SIGINT')
  const deadline = Date.now() + 60_000
  while (!exited(server)) {
    if (Date.now() > deadline) {
      log?.('the temporary PostgreSQL server did not stop within 60 s of a fast shutdown; killed')
      server.kill('SIGKILL')
      break
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  while (!exited(server)) await new Promise((resolve) => setTimeout(resolve, 20))
}
