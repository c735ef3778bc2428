/**
 * @module storages/sftp/SftpConnection
 * One SSH connection with one SFTP channel, opened on first use and shared by every call of a
 * storage (SFTP multiplexes requests), with strict host-key checking against `known_hosts`.
 *
 * The connection is closed `idleMs` after its last call ended: a daemon that backs up nightly should
 * not hold an SSH login open all day, and a finished process must be able to exit (ssh2's keepalive
 * timer would hold the event loop). A server that stops answering for `timeoutMs` is dead: SSH
 * keepalives (every quarter of it) notice it between requests, the channel's guard (`guardedChannel`)
 * while requests wait. A connection that drops is replaced on the next call; calls that were in flight,
 * and calls made on it after it dropped, fail with errors `isSftpRetryable` accepts.
 */
import { readFile } from 'node:fs/promises'
import { connect as connectTcp, type Socket } from 'node:net'
import { Client, type SFTPWrapper } from 'ssh2'
import { guardChannel, silenceError, type GuardedChannel } from './guardedChannel.js'
import { fingerprint, keyType, knownKeysFor, type KnownKey } from './knownHosts.js'
import { HostKeyError, SftpConnectionError } from './sftpErrors.js'

export interface SftpConnectionOptions {
  /** The storage's name, for messages. */
  name: string
  host: string
  port: number
  username: string
  password?: string
  /** Path of a private key file (already `~`-expanded). */
  privateKey?: string
  passphrase?: string
  /** Path of the `known_hosts` file. */
  knownHosts: string
  strictHostKey: boolean
  log(level: 'info' | 'warn', message: string): void
  /** Close the connection after this long without calls. @default 5000 */
  idleMs?: number
  /** Time limit for the TCP connection plus the SSH handshake and login. @default 20000 */
  readyTimeoutMs?: number
  /** A server that answers nothing (no request, no keepalive) for this long is dead: the calls waiting on it fail. @default 60000 */
  timeoutMs?: number
}

interface Session {
  client: Client
  /** The guarded channel (`guard.channel`). */
  sftp: SFTPWrapper
  guard: GuardedChannel
  socket: Socket
  closed: boolean
}

/** Host key algorithms ssh2 accepts for each key type a `known_hosts` line names. */
const algorithmsOf: Record<string, string[]> = {
  'ssh-ed25519': ['ssh-ed25519'],
  'ecdsa-sha2-nistp256': ['ecdsa-sha2-nistp256'],
  'ecdsa-sha2-nistp384': ['ecdsa-sha2-nistp384'],
  'ecdsa-sha2-nistp521': ['ecdsa-sha2-nistp521'],
  'ssh-rsa': ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'],
}

export class SftpConnection {
  private session?: Promise<Session>
  private active = 0
  private idle?: NodeJS.Timeout
  private warned = false

  constructor(private readonly options: SftpConnectionOptions) {}

  /** How long a server may answer nothing before it counts as dead (`SftpConnectionOptions.timeoutMs`). */
  get timeoutMs(): number {
    return this.options.timeoutMs ?? 60_000
  }

  /** The SFTP channel, connecting first when needed; pair every call with `release()`. */
  async acquire(): Promise<SFTPWrapper> {
    this.active++
    clearTimeout(this.idle)
    try {
      const current = (this.session ??= this.open())
      let session = await current
      if (session.closed) {
        // Only one caller replaces a dropped connection; the others wait for its replacement.
        if (this.session === current) this.session = this.open()
        session = await this.session!
      }
      return session.sftp
    } catch (err) {
      this.session = undefined
      this.release()
      throw err
    }
  }

  release(): void {
    if (--this.active > 0) return
    clearTimeout(this.idle)
    this.idle = setTimeout(() => this.active === 0 && this.close(), this.options.idleMs ?? 5000).unref()
  }

  /** Runs `fn` with the channel (a connection lost under it fails its requests with `SftpConnectionError`, retryable). */
  async use<T>(fn: (sftp: SFTPWrapper) => Promise<T>): Promise<T> {
    const sftp = await this.acquire()
    try {
      return await fn(sftp)
    } catch (err) {
      throw this.explain(err)
    } finally {
      this.release()
    }
  }

  /** A connection lost under a request, reported as such (and retryable); any other error as it is. */
  explain(err: unknown): unknown {
    // ssh2 fails every request in flight with this bare message when the connection closes.
    if ((err as Error | undefined)?.message === 'No response from server') {
      return new SftpConnectionError(`the SSH connection to ${this.options.host}:${this.options.port} was lost`)
    }
    return err
  }

  /** Forgets the current connection (it failed under a call, or cannot be trusted to answer): the next call opens a new one. */
  drop(): void {
    const current = this.session
    this.session = undefined
    void current?.then(
      (session) => lose(session),
      () => {},
    )
  }

  close(): void {
    const current = this.session
    this.session = undefined
    clearTimeout(this.idle)
    void current?.then(
      (session) => session.client.end(),
      () => {},
    )
  }

  private async open(): Promise<Session> {
    const { host, port, username, strictHostKey } = this.options
    const where = `${host}:${port}`
    const privateKey = this.options.privateKey
      ? await readFile(this.options.privateKey).catch((err: NodeJS.ErrnoException) => {
          throw new Error(`cannot read privateKey ${this.options.privateKey}: ${err.code ?? err.message}`)
        })
      : undefined
    const knownText = await readFile(this.options.knownHosts, 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined
      throw new Error(`cannot read knownHosts ${this.options.knownHosts}: ${err.code ?? err.message}`)
    })
    const known = knownText === undefined ? [] : knownKeysFor(knownText, host, port)
    const deadMs = this.timeoutMs
    const timeoutMs = this.options.readyTimeoutMs ?? 20_000
    const socket = await connectSocket(host, port, timeoutMs)

    let hostKeyProblem: HostKeyError | undefined
    const verify = (blob: Buffer): boolean => {
      const offered = `${keyType(blob)} ${fingerprint(blob)}`
      const base64 = blob.toString('base64')
      if (known.some((k) => k.revoked && k.key === base64)) {
        hostKeyProblem = new HostKeyError(`the host key of ${where} (${offered}) is marked @revoked in ${this.options.knownHosts}; refusing to connect`)
        return false
      }
      if (known.some((k) => !k.revoked && k.key === base64)) return true
      const listed = known.some((k) => !k.revoked)
      if (!strictHostKey) {
        if (!this.warned) {
          this.warned = true
          this.options.log(
            'warn',
            `sftp storage "${this.options.name}": strictHostKey is off: accepting the host key of ${where} (${offered}) without checking it (${listed ? 'it does NOT match' : 'it is not in'} ${this.options.knownHosts})`,
          )
        }
        return true
      }
      hostKeyProblem = listed
        ? new HostKeyError(
            `the host key of ${where} has CHANGED: the server offers ${offered}, which does not match ${this.options.knownHosts}; the server was reinstalled or someone is intercepting the connection. Refusing to connect`,
          )
        : new HostKeyError(
            `the host key of ${where} (${offered}) is unknown: it is not in ${knownText === undefined ? `${this.options.knownHosts} (no such file)` : this.options.knownHosts}. Check the fingerprint with the server's administrator, then add it: ssh-keyscan -p ${port} ${host} >> ${this.options.knownHosts}`,
          )
      return false
    }

    const client = new Client()
    const serverHostKey = preferredHostKeyAlgorithms(known)
    return new Promise<Session>((resolve, reject) => {
      let ready = false
      let session: Session | undefined
      const fail = (err: Error & { level?: string }) => {
        socket.destroy()
        if (hostKeyProblem) return reject(hostKeyProblem)
        if (err.level === 'client-authentication') return reject(new Error(`authentication as "${username}" at ${where} failed: ${describeAuth(this.options)}`))
        reject(err)
      }
      client.once('ready', () => {
        client.sftp((err, sftp) => {
          if (err) {
            client.end()
            return fail(err)
          }
          ready = true
          const guard = guardChannel(sftp, { where, timeoutMs: deadMs, onStall: () => session && lose(session) })
          const opened: Session = { client, sftp: guard.channel, guard, socket, closed: false }
          session = opened
          const closed = () => {
            opened.closed = true
            guard.lost()
          }
          sftp.on('close', closed)
          client.on('close', closed)
          resolve(opened)
        })
      })
      // After `ready`, errors only end the session: the calls in flight fail through the guard, a
      // keepalive that went unanswered (ssh2's `client-timeout`) saying so.
      client.on('error', (err: Error & { level?: string }) => {
        if (!ready) return fail(err)
        if (session) session.guard.lost(err.level === 'client-timeout' ? silenceError(where, deadMs) : undefined)
      })
      client.once('close', () => {
        if (!ready) reject(hostKeyProblem ?? new SftpConnectionError(`the SSH connection to ${where} closed during the handshake`))
      })
      client.connect({
        sock: socket,
        username,
        password: this.options.password,
        privateKey,
        passphrase: this.options.passphrase,
        hostVerifier: verify,
        readyTimeout: timeoutMs,
        // ssh2 gives up at the (countMax + 1)th interval without an answer: after `deadMs`.
        keepaliveInterval: deadMs / 4,
        keepaliveCountMax: 3,
        ...(serverHostKey.length > 0 && { algorithms: { serverHostKey: serverHostKey as never } }),
      })
    })
  }
}

/** Closes `session` for good, a silent one too (`end()` alone waits for a peer that may never answer). */
function lose(session: Session): void {
  session.closed = true
  session.guard.lost()
  session.client.end()
  session.socket.destroy()
}

/** Like `ssh`: offer first the key types `known_hosts` already has for this host, so a known host is checked against its known key. */
function preferredHostKeyAlgorithms(known: KnownKey[]): string[] {
  const algorithms = known.filter((k) => !k.revoked).flatMap((k) => algorithmsOf[k.type] ?? [])
  return [...new Set(algorithms)]
}

function describeAuth(options: SftpConnectionOptions): string {
  const methods = [options.privateKey && 'the private key', options.password !== undefined && 'the password'].filter(Boolean)
  return methods.length ? `${methods.join(' and ')} refused` : 'no password or privateKey is configured'
}

const connectCodes: Record<string, string> = {
  ECONNREFUSED: 'nothing accepts connections there',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be resolved now',
  EHOSTUNREACH: 'the host cannot be reached',
  ENETUNREACH: 'the network cannot be reached',
  ECONNRESET: 'the connection was reset',
}

/** A TCP connection, with its own time limit (ssh2's readyTimeout starts only after this). */
function connectSocket(host: string, port: number, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connectTcp({ host, port })
    const timer = setTimeout(() => {
      socket.destroy()
      reject(Object.assign(new Error(`connecting to ${host}:${port} timed out`), { code: 'ETIMEDOUT' }))
    }, timeoutMs)
    socket.once('connect', () => {
      clearTimeout(timer)
      socket.removeAllListeners('error')
      resolve(socket)
    })
    socket.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer)
      // "connect ECONNREFUSED 1.2.3.4:22" as words; the code stays (retries look at it).
      const why = err.code ? `${connectCodes[err.code] ?? err.message} (${err.code})` : err.message
      reject(Object.assign(new Error(`cannot connect to ${host}:${port}: ${why}`, { cause: err }), { code: err.code }))
    })
  })
}
