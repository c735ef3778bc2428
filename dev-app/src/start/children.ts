/**
 * @module start/children
 * Child processes of `npm start`: spawned with a name prefix on their output, waited on, and stopped
 * together on Ctrl-C.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process'
import { displayLine } from './childOutput.js'

const running = new Set<ChildProcess>()

/** Starts a long-running child whose output lines are prefixed with `[name]`. */
export function startChild(name: string, command: string, args: string[], options: SpawnOptions & { quiet?: boolean } = {}): ChildProcess {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] })
  running.add(child)
  child.on('exit', () => running.delete(child))
  // A quiet child's output is kept (the last lines) and shown only if it fails.
  const kept: string[] = []
  const relay = (stream: NodeJS.ReadableStream | null, sink: NodeJS.WriteStream) => {
    let pending = ''
    stream?.on('data', (chunk: Buffer) => {
      pending += chunk.toString()
      const lines = pending.split('\n')
      pending = lines.pop() ?? ''
      for (const raw of lines) {
        const line = displayLine(raw)
        if (line === undefined) continue
        if (!options.quiet) sink.write(`[${name}] ${line}\n`)
        else if (kept.push(line) > 60) kept.shift()
      }
    })
  }
  child.on('exit', (code) => {
    if (options.quiet && code !== 0) for (const line of kept) process.stderr.write(`[${name}] ${line}\n`)
  })
  relay(child.stdout, process.stdout)
  relay(child.stderr, process.stderr)
  return child
}

/** A child that exited 0 without printing its done line: its body never ran (see `runChild`). */
export class SilentExitError extends Error {}

/**
 * Runs a child to completion; rejects with its exit code. With `doneLine`, an exit 0 without that line
 * on stdout also rejects (a `SilentExitError`): a script that never ran its body must not pass for one
 * that succeeded.
 */
export function runChild(
  name: string,
  command: string,
  args: string[],
  options: SpawnOptions & { quiet?: boolean; doneLine?: string | RegExp } = {},
): Promise<void> {
  const child = startChild(name, command, args, options)
  const { doneLine } = options
  let sawDoneLine = false
  // The last bytes of the previous chunk go with the next one: a line split between two chunks is still seen.
  let tail = ''
  if (doneLine) {
    child.stdout?.on('data', (chunk: Buffer) => {
      const text = tail + chunk.toString()
      sawDoneLine ||= typeof doneLine === 'string' ? text.includes(doneLine) : doneLine.test(text)
      tail = text.slice(-200)
    })
  }
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('exit', (code, signal) => {
      if (code !== 0) return reject(new Error(`${name} failed (${signal ?? `exit code ${code}`})`))
      if (doneLine && !sawDoneLine) return reject(new SilentExitError(`${name} exited without finishing (no "${String(doneLine)}")`))
      resolve()
    })
  })
}

/**
 * Runs `step` up to `attempts` times while it ends in a `SilentExitError` (any other failure is thrown at
 * once); true when one attempt finished, false when every one exited silently.
 */
export async function retrySilentExits(step: () => Promise<void>, attempts: number, onRetry: (error: Error) => void): Promise<boolean> {
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      await step()
      return true
    } catch (err) {
      if (!(err instanceof SilentExitError)) throw err
      if (attempt < attempts) onRetry(err)
    }
  }
  return false
}

/** Sends SIGTERM to every child still running and waits (SIGKILL after `graceMs`). */
export async function stopChildren(graceMs = 10_000): Promise<void> {
  await Promise.all(
    [...running].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve()
          const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
          child.once('exit', () => {
            clearTimeout(timer)
            resolve()
          })
          child.kill('SIGTERM')
        }),
    ),
  )
}

/** Resolves once `url` answers with a status below 500, polling every 250 ms; rejects after `timeoutMs`. */
export async function waitForHttp(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url, { redirect: 'manual' })
      await response.body?.cancel()
      if (response.status < 500) return
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  throw new Error(`${url} did not answer within ${Math.round(timeoutMs / 1000)} s`)
}
