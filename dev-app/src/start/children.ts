/**
 * @module start/children
 * Child processes of `npm start`: spawned with a name prefix on their output, waited on, and stopped
 * together on Ctrl-C.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process'

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
      for (const line of lines) {
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

/**
 * Runs a child to completion; rejects with its exit code. With `doneLine`, an exit 0 without that line
 * on stdout also rejects: a script that never ran its body must not pass for one that succeeded.
 */
export function runChild(name: string, command: string, args: string[], options: SpawnOptions & { quiet?: boolean; doneLine?: string } = {}): Promise<void> {
  const child = startChild(name, command, args, options)
  let sawDoneLine = false
  if (options.doneLine) child.stdout?.on('data', (chunk: Buffer) => (sawDoneLine ||= chunk.toString().includes(options.doneLine!)))
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('exit', (code, signal) => {
      if (code !== 0) return reject(new Error(`${name} failed (${signal ?? `exit code ${code}`})`))
      if (options.doneLine && !sawDoneLine) return reject(new Error(`${name} exited without finishing (no "${options.doneLine}")`))
      resolve()
    })
  })
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
