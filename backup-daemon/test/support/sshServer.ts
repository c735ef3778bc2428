/**
 * @module test/support/sshServer
 * A throwaway OpenSSH server (`/usr/sbin/sshd -D`) on 127.0.0.1 and a free port, everything in a
 * temp folder: its own ed25519 host key, an `authorized_keys` with two client keys (one protected by
 * a passphrase), a `known_hosts` naming the host key, and `internal-sftp`. It runs as whoever runs
 * the tests and accepts logins as that user with those keys only. As root, sshd insists on its
 * privilege-separation folder `/run/sshd` (what Debian's unit creates at start), so it is made when
 * missing. Password logins are off: checking a password needs PAM or the shadow file, i.e. root and
 * a user with a known password, which a test cannot arrange on a shared machine.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { freePort } from './freePort.js'
import { stopServer } from './stopServer.js'

const run = promisify(execFile)

export interface SshServer {
  host: string
  port: number
  /** The login name (the user running the tests). */
  username: string
  /** Temp folder holding keys and config; `root` below it is where tests keep their storages. */
  dir: string
  root: string
  /** Client key without passphrase, and one with `passphrase`. */
  clientKey: string
  lockedKey: string
  passphrase: string
  /** `known_hosts` with this server's host key. */
  knownHosts: string
  /** `ssh-keygen -lf` of the host key, e.g. `SHA256:...`. */
  hostKeyFingerprint: string
  /** `sshd -V`. */
  version: string
  /** The listening sshd (its per-connection children exit when their connections do). */
  process: ChildProcess
  /**
   * Sends `signal` to the listening sshd and every process below it (one per connection), read from
   * `/proc`: `SIGSTOP` makes a server that stops answering mid-call (the TCP connections stay open),
   * `SIGCONT` wakes it, `SIGKILL` of the sessions alone (`sessionsOnly`) a server that died under them.
   */
  signal(signal: NodeJS.Signals, options?: { sessionsOnly?: boolean }): void
  stop(): Promise<void>
}

function signalTree(root: number, signal: NodeJS.Signals, belowOnly: boolean): void {
  for (const pid of [...(belowOnly ? [] : [root]), ...descendants(root)]) {
    try {
      process.kill(pid, signal)
    } catch {
      // Gone meanwhile (a session that ended).
    }
  }
}

/** Every process below `pid` (children first, then theirs). */
function descendants(pid: number): number[] {
  let text: string
  try {
    text = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
  } catch {
    return []
  }
  const children = text.trim().split(/\s+/).filter(Boolean).map(Number)
  return children.flatMap((child) => [child, ...descendants(child)])
}

async function keygen(path: string, passphrase = ''): Promise<string> {
  await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', passphrase, '-C', 'backup-daemon-test', '-f', path])
  return path
}

export async function startSshServer(): Promise<SshServer> {
  const dir = await mkdtemp(join(tmpdir(), 'bd-sshd-'))
  const root = join(dir, 'root')
  await mkdir(root)
  const hostKey = await keygen(join(dir, 'host_key'))
  const clientKey = await keygen(join(dir, 'client_key'))
  const passphrase = 'open sesame'
  const lockedKey = await keygen(join(dir, 'locked_key'), passphrase)
  const authorized = join(dir, 'authorized_keys')
  await writeFile(authorized, (await readFile(`${clientKey}.pub`, 'utf8')) + (await readFile(`${lockedKey}.pub`, 'utf8')))
  const hostPub = (await readFile(`${hostKey}.pub`, 'utf8')).trim().split(/\s+/)
  const knownHosts = join(dir, 'known_hosts')
  const hostKeyFingerprint = (await run('ssh-keygen', ['-lf', `${hostKey}.pub`])).stdout.split(/\s+/)[1]!
  const config = join(dir, 'sshd_config')
  await writeFile(
    config,
    [
      `HostKey ${hostKey}`,
      `AuthorizedKeysFile ${authorized}`,
      'ListenAddress 127.0.0.1',
      'StrictModes no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      'PermitRootLogin prohibit-password',
      'PidFile none',
      'Subsystem sftp internal-sftp',
      'LogLevel INFO',
      '',
    ].join('\n'),
  )
  if (process.getuid?.() === 0) await mkdir('/run/sshd', { recursive: true, mode: 0o755 })
  const version = (await run('/usr/sbin/sshd', ['-V']).catch((err: { stderr?: string }) => ({ stderr: err.stderr ?? '' }))).stderr.trim()
  // A free port can be taken by another process before sshd binds it (tests run side by side): then another.
  let started: { port: number; child: ChildProcess } | undefined
  for (let attempt = 1; !started; attempt++) {
    const port = await freePort()
    try {
      started = { port, child: await spawnSshd(config, port) }
    } catch (err) {
      if (attempt >= 5 || !/Address already in use/.test((err as Error).message)) throw err
    }
  }
  const { port, child } = started
  await writeFile(knownHosts, `[127.0.0.1]:${port} ${hostPub[0]} ${hostPub[1]}\n`)
  return {
    host: '127.0.0.1',
    port,
    username: userInfo().username,
    dir,
    root,
    clientKey,
    lockedKey,
    passphrase,
    knownHosts,
    hostKeyFingerprint,
    version,
    process: child,
    signal: (signal, { sessionsOnly = false } = {}) => signalTree(child.pid!, signal, sessionsOnly),
    stop: async () => {
      // A stopped server cannot end: woken first.
      if (child.exitCode === null) signalTree(child.pid!, 'SIGCONT', false)
      await stopServer(child, dir)
    },
  }
}

/** sshd on `port`, resolved once it listens; rejects with its log when it exits first. */
async function spawnSshd(config: string, port: number): Promise<ChildProcess> {
  // sshd wants an absolute path to itself (it re-executes itself per connection).
  const child = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', config, '-p', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] })
  // A test run that ends without stop() (a timeout, mocha --exit) must not leave the server behind.
  const killOnExit = () => child.kill('SIGKILL')
  process.once('exit', killOnExit)
  child.once('exit', () => process.off('exit', killOnExit))
  let log = ''
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sshd did not start: ${log}`)), 15_000)
    child.stderr!.on('data', (chunk: Buffer) => {
      log += chunk.toString()
      if (/Server listening on/.test(log)) {
        clearTimeout(timer)
        resolve()
      }
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`sshd exited with ${code}: ${log}`))
    })
  })
  return child
}
