/**
 * @module engine/runHooks
 * A job's `beforeScript` / `afterScript` (the original's hook scripts): a shell snippet run with
 * `/bin/sh -c` in the daemon's working directory, its stdout lines logged as info and stderr lines as
 * warnings in the job log. A non-zero exit rejects; cancelling kills the script and everything it
 * started (its own process group), so a `sleep 600` in a hook cannot hold a cancel up.
 */
import { spawnOwned } from '../sources/support/spawnOwned.js'
import { createInterface } from 'node:readline'
import type { LogLevel } from '../logs/formatLine.js'

export interface HookOptions {
  /** Cancels the run: the script's process group gets SIGTERM, then SIGKILL after `killAfterMs`. */
  signal: AbortSignal
  log(level: LogLevel, message: string): void
  /** Variables added to the script's environment (the job's name). */
  env?: Record<string, string>
  /** @default 5000 */
  killAfterMs?: number
}

/** Runs one hook script; resolves when it exits 0, rejects otherwise (or with the abort reason). */
export function runHook(kind: 'beforeScript' | 'afterScript', script: string, { signal, log, env, killAfterMs = 5000 }: HookOptions): Promise<void> {
  if (!script.trim()) return Promise.resolve()
  signal.throwIfAborted()
  log('info', `${kind}: started`)
  return new Promise((resolve, reject) => {
    // detached: the script leads its own process group, so a kill reaches what it started too.
    const child = spawnOwned('/bin/sh', ['-c', script], { stdio: ['ignore', 'pipe', 'pipe'], detached: true, env: { ...process.env, ...env } })
    let killTimer: NodeJS.Timeout | undefined
    const killGroup = (sig: NodeJS.Signals) => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, sig)
      } catch {
        // Already gone.
      }
    }
    const onAbort = () => {
      log('warn', `${kind}: cancelled, stopping the script`)
      killGroup('SIGTERM')
      killTimer = setTimeout(() => killGroup('SIGKILL'), killAfterMs)
      killTimer.unref()
    }
    signal.addEventListener('abort', onAbort, { once: true })
    const lines = (stream: NodeJS.ReadableStream, level: LogLevel) =>
      new Promise<void>((done) => {
        const reader = createInterface({ input: stream, crlfDelay: Infinity })
        reader.on('line', (line) => log(level, `${kind}: ${line}`))
        reader.on('close', done)
      })
    const output = Promise.all([lines(child.stdout!, 'info'), lines(child.stderr!, 'warn')])
    child.on('error', (err) => {
      signal.removeEventListener('abort', onAbort)
      reject(new Error(`${kind} could not start: ${err.message}`))
    })
    child.on('close', (code, sig) => {
      void output.then(() => {
        signal.removeEventListener('abort', onAbort)
        if (killTimer) clearTimeout(killTimer)
        if (signal.aborted) reject(signal.reason)
        else if (code === 0) {
          log('info', `${kind}: finished`)
          resolve()
        } else reject(new Error(`${kind} failed: ${sig ? `killed by ${sig}` : `exit code ${code}`}`))
      })
    })
  })
}

/**
 * Runs `body` between the job's hooks: a failing `beforeScript` fails the run before anything is read
 * or written; `afterScript` runs after every outcome (success, failure, cancel). A failing afterScript
 * is logged as an error and does not undo a committed snapshot. An afterScript started after a cancel
 * runs to its end (it usually restarts what beforeScript stopped); one running when the cancel comes
 * is killed.
 */
export async function withHooks<T>(
  job: { name: string; beforeScript?: string; afterScript?: string },
  options: HookOptions,
  body: () => Promise<T>,
): Promise<T> {
  const env = { BACKUP_DAEMON_JOB: job.name, ...options.env }
  try {
    if (job.beforeScript) await runHook('beforeScript', job.beforeScript, { ...options, env })
    return await body()
  } finally {
    if (job.afterScript) {
      const own = new AbortController()
      const forward = () => own.abort(options.signal.reason)
      if (!options.signal.aborted) options.signal.addEventListener('abort', forward, { once: true })
      try {
        await runHook('afterScript', job.afterScript, { ...options, env, signal: own.signal })
      } catch (err) {
        options.log('error', err instanceof Error ? err.message : String(err))
      } finally {
        options.signal.removeEventListener('abort', forward)
      }
    }
  }
}
