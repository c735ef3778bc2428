/**
 * @module sources/postgresql/psql
 * SQL through `psql` in a child process (the daemon has no PostgreSQL driver): a one-shot statement
 * (`psqlQuery`), or a session kept open on the child's stdin (`PsqlSession`), which is what recording a
 * dump needs: the transaction that exports the snapshot pg_dump reads must stay open while pg_dump imports
 * it, and the rows are counted in that same transaction. The password travels in `PGPASSWORD` only, as
 * for pg_dump; `--no-password` so a missing one fails instead of waiting for a terminal.
 */
import type { ChildProcess } from 'node:child_process'
import { tail } from '../support/runChild.js'
import { spawnOwned } from '../support/spawnOwned.js'
import { splitPassword } from './connectionString.js'

/** Where psql connects: a database name or connection string, and the source's other connection keys. */
export interface PsqlTarget {
  database: string
  host?: string | undefined
  port?: number | undefined
  user?: string | undefined
  password?: string | undefined
  /** The psql binary. @default "psql" */
  psql?: string | undefined
}

function invocation(target: PsqlTarget): { command: string; args: string[]; env: NodeJS.ProcessEnv } {
  const split = splitPassword(target.database)
  // -X: no ~/.psqlrc; -A -t: bare values, one row per line; -q: no command tags.
  const args = ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '--no-password', `--dbname=${split.database}`]
  if (target.host) args.push(`--host=${target.host}`)
  if (target.port !== undefined) args.push(`--port=${target.port}`)
  if (target.user) args.push(`--username=${target.user}`)
  const env: NodeJS.ProcessEnv = { ...process.env }
  delete env.PGPASSWORD
  const password = split.password ?? target.password
  if (password !== undefined) env.PGPASSWORD = password
  return { command: target.psql ?? 'psql', args, env }
}

/** An SQL string literal (standard_conforming_strings, on since PostgreSQL 9.1). */
export const sqlLiteral = (value: string) => `'${value.replace(/'/g, "''")}'`
/** A quoted SQL identifier. */
export const sqlIdentifier = (value: string) => `"${value.replace(/"/g, '""')}"`

/** A psql session: statements written to its stdin one at a time, each answered by its output lines. */
export class PsqlSession {
  private buffered = ''
  private waiting: { lines: number; got: string[]; resolve(lines: string[]): void; reject(err: Error): void } | undefined
  private failure: Error | undefined
  private readonly stderr = tail(3)
  private readonly closed: Promise<number | null>

  private constructor(
    private readonly child: ChildProcess,
    private readonly label: string,
  ) {
    child.stdout!.setEncoding('utf8')
    child.stdout!.on('data', (text: string) => {
      this.buffered += text
      this.deliver()
    })
    child.stderr!.on('data', this.stderr.push)
    // An early exit (an error with ON_ERROR_STOP, a refused connection) fails the statement waiting for output.
    this.closed = new Promise((resolve) => {
      child.once('error', (err) => {
        this.fail(err.message)
        resolve(null)
      })
      child.once('close', (code) => {
        this.fail(`exited with ${code}`)
        resolve(code)
      })
    })
    child.stdin!.on('error', () => {}) // EPIPE after an early exit: the exit says why.
  }

  static open(target: PsqlTarget, signal: AbortSignal): PsqlSession {
    signal.throwIfAborted()
    const { command, args, env } = invocation(target)
    const child = spawnOwned(command, args, { env, stdio: ['pipe', 'pipe', 'pipe'], signal, killSignal: 'SIGKILL' })
    return new PsqlSession(child, command.split('/').pop()!)
  }

  /** Runs `sql` and resolves with the first `lines` lines it printed (a statement must print that many). */
  query(sql: string, lines = 1): Promise<string[]> {
    if (this.failure) return Promise.reject(this.failure)
    if (this.waiting) return Promise.reject(new Error('psql session: one statement at a time'))
    return new Promise((resolve, reject) => {
      this.waiting = { lines, got: [], resolve, reject }
      this.child.stdin!.write(`${sql}\n`)
      this.deliver()
    })
  }

  /** Ends the session (`COMMIT` of a read-only transaction: nothing to keep) and waits for psql to exit. */
  async close(): Promise<void> {
    if (!this.failure) this.child.stdin!.end('COMMIT;\n')
    else this.child.kill('SIGKILL')
    // A failure was reported where it happened; a COMMIT that fails has nothing to lose.
    await this.closed
  }

  private deliver(): void {
    const waiting = this.waiting
    if (!waiting) return
    let newline: number
    while (waiting.got.length < waiting.lines && (newline = this.buffered.indexOf('\n')) !== -1) {
      waiting.got.push(this.buffered.slice(0, newline))
      this.buffered = this.buffered.slice(newline + 1)
    }
    if (waiting.got.length === waiting.lines) {
      this.waiting = undefined
      waiting.resolve(waiting.got)
    }
  }

  private fail(why: string): void {
    this.failure ??= new Error(`${this.label} ${why}: ${this.stderr.text() || '(no output)'}`)
    const waiting = this.waiting
    this.waiting = undefined
    waiting?.reject(this.failure)
  }
}

/**
 * Runs `sql` (statements each on their own, so `CREATE DATABASE` may be among them) in one psql call fed
 * on stdin, and resolves with what it printed (trimmed). Rejects with psql's last stderr lines.
 */
export async function psqlQuery(target: PsqlTarget, sql: string, signal: AbortSignal): Promise<string> {
  signal.throwIfAborted()
  const { command, args, env } = invocation(target)
  const child = spawnOwned(command, args, { env, stdio: ['pipe', 'pipe', 'pipe'], signal, killSignal: 'SIGKILL' })
  const stderr = tail(3)
  let stdout = ''
  child.stdout!.setEncoding('utf8')
  child.stdout!.on('data', (text: string) => (stdout += text))
  child.stderr!.on('data', stderr.push)
  child.stdin!.on('error', () => {}) // EPIPE after an early exit: the exit code and stderr say why.
  child.stdin!.end(`${sql}\n`)
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject)
    child.once('close', resolve)
  }).catch((err: Error) => {
    if (signal.aborted) throw signal.reason
    throw err
  })
  if (signal.aborted) throw signal.reason
  if (code !== 0) throw new Error(`${command.split('/').pop()} exited with ${code}: ${stderr.text() || '(no output)'}`)
  return stdout.trim()
}
