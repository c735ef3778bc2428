/**
 * @module sources/support/childOutput
 * A child process's stdout as a stream that ends only when the process exited with 0, and fails
 * with the last lines of its stderr otherwise, so a dump that dies halfway is never taken for a
 * complete one. Aborting `signal` kills the process (SIGKILL) and fails the stream with the reason.
 */
import type { SpawnOptions } from 'node:child_process'
import { PassThrough, type Readable } from 'node:stream'
import { tail } from './runChild.js'
import { spawnOwned } from './spawnOwned.js'

export interface ChildOutputOptions extends Pick<SpawnOptions, 'env' | 'cwd'> {
  signal: AbortSignal
  /** Name used in error messages. @default the command's file name */
  label?: string
  /** stderr lines quoted on failure. @default 5 */
  tailLines?: number
  /** Called with each stderr line-batch (progress, warnings); never with stdout. */
  onStderr?: (text: string) => void
}

export function childOutput(command: string, args: string[], options: ChildOutputOptions): Readable {
  const { signal, tailLines = 5 } = options
  const label = options.label ?? command.split('/').pop()
  const out = new PassThrough({ highWaterMark: 1 << 20 })
  if (signal.aborted) {
    process.nextTick(() => out.destroy(signal.reason as Error))
    return out
  }
  const child = spawnOwned(command, args, { env: options.env, cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] })
  const stderr = tail(tailLines)
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr.push(chunk)
    options.onStderr?.(chunk.toString('utf8'))
  })
  child.stdout!.pipe(out, { end: false })
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  }
  const onAbort = () => kill()
  signal.addEventListener('abort', onAbort, { once: true })
  // The consumer went away (the archive failed elsewhere): stop the child too.
  out.on('close', kill)
  // The consumer's own listeners get every error; this one keeps a child that fails after its consumer stopped
  // listening (the archive failed elsewhere first: a row count's connection refused) from crashing the process.
  out.on('error', () => {})
  child.once('error', (err) => {
    signal.removeEventListener('abort', onAbort)
    out.destroy(new Error(`${label} could not start: ${err.message}`))
  })
  child.once('close', (code, killedBy) => {
    signal.removeEventListener('abort', onAbort)
    if (signal.aborted) out.destroy(signal.reason as Error)
    else if (code === 0) out.end()
    else out.destroy(new Error(`${label} exited with ${code ?? killedBy}: ${stderr.text() || '(no output)'}`))
  })
  return out
}
