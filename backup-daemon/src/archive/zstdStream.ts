/**
 * @module archive/zstdStream
 * zstd through the `zstd` command (Debian package `zstd`): Node 20's zlib has no zstd (it arrives in
 * 22.15) and the npm bindings either fetch their prebuilt binaries from GitHub (`zstd-napi`, which only
 * builds from source here) or compress whole buffers (`@mongodb-js/zstd`). A child process streams
 * with bounded memory (pipes give backpressure), runs on the other core, and is killed on abort.
 */
import { spawn } from 'node:child_process'
import { Duplex, Readable } from 'node:stream'

export interface ZstdOptions {
  /** Compression level 1-19. @default 3 (zstd's own default) */
  level?: number
  signal?: AbortSignal
  /** The zstd binary. @default "zstd" on PATH */
  command?: string
}

/** A Duplex: bytes in, compressed (or decompressed) bytes out; errors when zstd fails or is missing. */
export function zstdStream(mode: 'compress' | 'decompress', options: ZstdOptions = {}): Duplex {
  const args = mode === 'compress' ? ['-c', '-q', `-${options.level ?? 3}`] : ['-d', '-c', '-q']
  const child = spawn(options.command ?? 'zstd', args, { stdio: ['pipe', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-500)
  })
  const exited = new Promise<void>((resolve, reject) => {
    child.once('error', (err) => reject(new Error(`zstd could not start (${err.message}); install the "zstd" package`)))
    child.once('close', (code, signal) => (code === 0 ? resolve() : reject(new Error(`zstd ${mode} failed (${signal ?? `exit ${code}`}): ${stderr.trim()}`))))
  })
  exited.catch(() => {})
  // The child's own error is reported through the output (exit status); a write to its closed stdin is not news.
  child.stdin.on('error', () => {})
  async function* output(): AsyncGenerator<Buffer> {
    for await (const chunk of child.stdout) yield chunk as Buffer
    // Only a clean exit ends the stream: a truncated or corrupt input must not look like a short archive.
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
