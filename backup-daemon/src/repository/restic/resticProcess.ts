/**
 * @module repository/restic/resticProcess
 * Runs the `restic` binary against one repository, the way the daemon runs `pg_dump` and `zstd`: the
 * repository and its password go through the environment (never the command line, which `ps` shows),
 * output is read as restic's JSON, and a failure is an Error quoting restic's last stderr lines with any
 * credential taken out (a `rest:https://user:pass@host/` repository string is redacted like every URL).
 *
 * Cancel: restic removes its lock when it gets SIGINT; SIGKILL would leave the lock behind and block the
 * next exclusive command (forget/prune) until someone unlocks. So an abort sends SIGINT, and SIGKILL only
 * if restic has not ended 10 s later; a daemon that is killed has the kernel send restic SIGINT
 * (`sources/support/spawnOwned`), so restic stops and removes its lock rather than live on.
 */
import { PassThrough, type Readable } from 'node:stream'
import { redactSecrets } from '../../logs/redactSecrets.js'
import { tail } from '../../sources/support/runChild.js'
import { spawnOwned } from '../../sources/support/spawnOwned.js'

/** Where and how to reach one repository (built from a `type: restic` storage entry). */
export interface ResticTarget {
  /** The restic binary. @default "restic" on PATH */
  binary?: string
  /** Any restic repository string: a path, `sftp:`, `s3:`, `rest:`, `rclone:`. */
  repository: string
  /** The repository password, or a file holding it. */
  password?: string
  passwordFile?: string
  /** Backend credentials as restic reads them (e.g. `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`). */
  env?: Record<string, string>
  /** Flags added to every command (`--cacert`, `-o sftp.command=…`, `--limit-upload`). */
  extraParams?: string[]
  /** restic's cache folder (kept under the daemon's data folder, so it survives restarts). */
  cacheDir?: string
  /** `--compression` of every `backup` (the storage's `compression`). @default restic's own */
  compression?: 'auto' | 'off' | 'max'
}

export interface ResticRun {
  signal?: AbortSignal
  /** Bytes for restic's stdin (`backup --stdin`). */
  stdin?: Readable
  /** Called with each stdout line (`--json` status lines of `backup`, `check`). */
  onLine?(line: string): void
  /** stderr lines quoted in a failure. @default 8 */
  tailLines?: number
  /** Working folder (a relative `backup` path is stored relative to it). */
  cwd?: string
  /** Capabilities restic runs without (`spawnOwned`'s `dropCapabilities`): a restore as root of untrusted input. */
  dropCapabilities?: readonly string[]
  /** Told restic's process id once it runs (a restore's progress reads what it wrote from `/proc/<pid>/io`). */
  onSpawn?(pid: number): void
}

/** SIGINT first so restic removes its lock; SIGKILL when it has not ended after this long. */
const killAfterMs = 10_000

/** The environment restic reads its repository and password from; nothing of the daemon's own secrets leaks in. */
export function resticEnv(target: ResticTarget): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TMPDIR: process.env.TMPDIR,
    RESTIC_REPOSITORY: target.repository,
    ...target.env,
  }
  if (target.password !== undefined) env.RESTIC_PASSWORD = target.password
  if (target.passwordFile !== undefined) env.RESTIC_PASSWORD_FILE = target.passwordFile
  if (target.cacheDir) env.RESTIC_CACHE_DIR = target.cacheDir
  return env
}

/** Error text from restic's stderr with credentials removed (the repository string may hold a password). */
function failure(target: ResticTarget, args: string[], how: string, stderr: string): Error {
  const secrets = [target.password, ...Object.values(target.env ?? {})].filter((s): s is string => Boolean(s && s.length >= 4))
  let text = redactSecrets(stderr || '(no output)')
  for (const secret of secrets) text = text.split(secret).join('[redacted]')
  return new ResticError(`restic ${args[0] ?? ''} ${how}: ${text}`, text)
}

/** A failed restic command; `stderr` (redacted) lets callers tell "no repository" or "locked" apart. */
export class ResticError extends Error {
  override name = 'ResticError'
  constructor(
    message: string,
    readonly stderr: string,
  ) {
    super(message)
  }
}

/**
 * Starts `restic <args>` and returns its stdout as a stream that ends only on exit code 0 (a `dump` that
 * dies halfway fails the stream). The consumer going away stops restic (SIGINT, so its lock goes too).
 */
export function resticStream(target: ResticTarget, args: string[], run: ResticRun = {}): Readable {
  const out = new PassThrough({ highWaterMark: 1 << 20 })
  const child = spawnOwned(target.binary ?? 'restic', [...(target.extraParams ?? []), ...args], {
    env: resticEnv(target),
    cwd: run.cwd,
    stdio: [run.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    // A killed daemon's restic stops too, removing its lock, instead of saving what its stdin ended with.
    deathSignal: 'SIGINT',
    ...(run.dropCapabilities && { dropCapabilities: run.dropCapabilities }),
  })
  if (child.pid !== undefined) run.onSpawn?.(child.pid)
  const stderr = tail(run.tailLines ?? 8)
  child.stderr!.on('data', stderr.push)
  if (run.stdin && child.stdin) {
    child.stdin.on('error', () => {})
    run.stdin.on('error', () => stop())
    run.stdin.pipe(child.stdin)
  }
  child.stdout!.pipe(out, { end: false })
  let killTimer: NodeJS.Timeout | undefined
  const stop = () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill('SIGINT')
    killTimer ??= setTimeout(() => child.kill('SIGKILL'), killAfterMs).unref()
  }
  run.signal?.addEventListener('abort', stop, { once: true })
  out.on('close', stop)
  child.once('error', (err: NodeJS.ErrnoException) => {
    run.signal?.removeEventListener('abort', stop)
    const hint = err.code === 'ENOENT' ? ' (install the "restic" package, version 0.14 or newer)' : ''
    out.destroy(new ResticError(`restic could not start: ${err.message}${hint}`, ''))
  })
  child.once('close', (code, killedBy) => {
    clearTimeout(killTimer)
    run.signal?.removeEventListener('abort', stop)
    if (run.signal?.aborted) out.destroy(run.signal.reason as Error)
    else if (code === 0) out.end()
    else out.destroy(failure(target, args, `exited with ${code ?? killedBy}`, stderr.text()))
  })
  return out
}

/** Runs `restic <args>` to its end; resolves with stdout (lines also go to `onLine` as they come). */
export async function restic(target: ResticTarget, args: string[], run: ResticRun = {}): Promise<string> {
  const stream = resticStream(target, args, run)
  let text = ''
  let pending = ''
  for await (const chunk of stream) {
    const piece = (chunk as Buffer).toString('utf8')
    // Bounded: a command whose whole output we keep (snapshots, version) prints little; status lines only pass through.
    if (!run.onLine || text.length < 4 << 20) text += piece
    if (run.onLine) {
      const lines = (pending + piece).split('\n')
      pending = lines.pop() ?? ''
      for (const line of lines) if (line) run.onLine(line)
    }
  }
  if (run.onLine && pending) run.onLine(pending)
  return text
}

/** `restic <args> --json` parsed (a command that prints one JSON document, e.g. `snapshots`, `stats`). */
export async function resticJson<T>(target: ResticTarget, args: string[], run: ResticRun = {}): Promise<T> {
  const text = await restic(target, [...args, '--json'], run)
  try {
    return JSON.parse(text) as T
  } catch {
    throw new ResticError(`restic ${args[0]} printed no JSON document: ${redactSecrets(text.slice(0, 200))}`, '')
  }
}
