/**
 * @module archive/childStream
 * A compressor as a child process (`zstd`, `xz`): bytes in through its stdin, out through its stdout.
 * Pipes give backpressure (memory stays bounded), the work runs on another core, the child is killed on
 * abort, and only a clean exit ends the output: a truncated or corrupt input fails the stream instead
 * of ending it short.
 */
import { Duplex, Readable } from 'node:stream'
import { spawnOwned } from '../sources/support/spawnOwned.js'

export interface ChildStreamOptions {
  /** The binary (on PATH or a path). */
  command: string
  args: string[]
  /** Named in errors, e.g. "zstd compress". */
  label: string
  /** Debian package named when the binary is missing. */
  packageName: string
  signal?: AbortSignal
}

export function childStream(options: ChildStreamOptions): Duplex {
  const child = spawnOwned(options.command, options.args, { stdio: ['pipe', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-500)
  })
  const exited = new Promise<void>((resolve, reject) => {
    child.once('error', (err) => reject(new Error(`${options.command} could not start (${err.message}); install the "${options.packageName}" package`)))
    child.once('close', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`${options.label} failed (${signal ?? `exit ${code}`}): ${stderr.trim()}`)),
    )
  })
  exited.catch(() => {})
  // The child's own error is reported through the output (exit status); a write to its closed stdin is not news.
  child.stdin!.on('error', () => {})
  async function* output(): AsyncGenerator<Buffer> {
    for await (const chunk of child.stdout!) yield chunk as Buffer
    await exited
  }
  const duplex = Duplex.from({ writable: child.stdin, readable: Readable.from(output(), { objectMode: false }) })
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  }
  duplex.once('close', kill)
  options.signal?.addEventListener('abort', kill, { once: true })
  return duplex
}
