/**
 * @module storages/sftp/SftpConnection
 * One SSH connection with one SFTP channel, opened on first use and shared by every call of a
 * storage (SFTP multiplexes requests), with strict host-key checking against `known_hosts`.
 *
 * The connection is closed `idleMs` after its last call ended: a daemon that backs up nightly should
 * not hold an SSH login open all day, and a finished process must be able to exit (ssh2's keepalive
 * timer would hold the event loop). SSH keepalives (every 15 s, 4 unanswered = dead) notice a silent
 * peer during long calls. A connection that drops is replaced on the next call; calls that were in
 * flight fail with errors `isSftpRetryable` accepts.
 */
import { readFile } from 'node:fs/promises'
import { connect as connectTcp, type Socket } from 'node:net'
import { Client, type SFTPWrapper } from 'ssh2'
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
}

interface Session {
  client: Client
  sftp: SFTPWrapper
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

  /** Runs `fn` with the channel; a connection lost under it is reported as such (and is retryable). */
  async use<T>(fn: (sftp: SFTPWrapper) => Promise<T>): Promise<T> {
    const sftp = await this.acquire()
    try {
      return await fn(sftp)
    } catch (err) {
      // ssh2 fails every request in flight with this bare message when the connection closes.
      if ((err as Error | undefined)?.message === 'No response from server') {
        throw new SftpConnectionError(`the SSH connection to ${this.options.host}:${this.options.port} was lost`)
      }
      throw err
    } finally {
      this.release()
    }
  }

  /** Forgets the current connection (it failed under a call): the next call opens a new one. */
  drop(): void {
    const current = this.session
    this.session = undefined
    void current?.then(
      (session) => {
        session.closed = true
        session.client.end()
      },
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
          const session: Session = { client, sftp, socket, closed: false }
          const closed = () => (session.closed = true)
          sftp.on('close', closed)
          client.on('close', closed)
          resolve(session)
        })
      })
      // After `ready`, errors only mark the session closed: the calls in flight fail on their own.
      client.on('error', (err) => (ready ? undefined : fail(err)))
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
        keepaliveInterval: 15_000,
        keepaliveCountMax: 4,
        ...(serverHostKey.length > 0 && { algorithms: { serverHostKey: serverHostKey as never } }),
      })
    })
  }
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
    socket.once('error', (err) => {
      clearTimeout(timer)
      reject(err)
    })
  })
}
