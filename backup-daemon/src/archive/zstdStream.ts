/**
 * @module archive/zstdStream
 * zstd through the `zstd` command (Debian package `zstd`): Node 20's zlib has no zstd (it arrives in
 * 22.15) and the npm bindings either fetch their prebuilt binaries from GitHub (`zstd-napi`, which only
 * builds from source here) or compress whole buffers (`@mongodb-js/zstd`). A child process streams
 * with bounded memory (pipes give backpressure), compresses on every core (`-T<threads>`, as the
 * original service's `zstd -T0`), and is killed on abort.
 */
import type { Duplex } from 'node:stream'
import { childStream } from './childStream.js'

export interface ZstdOptions {
  /** Compression level 1-19. @default 3 (zstd's own default) */
  level?: number
  /** Compression threads (`-T`; 0 = one per core). @default 0 */
  threads?: number
  signal?: AbortSignal
  /** The zstd binary. @default "zstd" on PATH */
  command?: string
}

/** A Duplex: bytes in, compressed (or decompressed) bytes out; errors when zstd fails or is missing. */
export function zstdStream(mode: 'compress' | 'decompress', options: ZstdOptions = {}): Duplex {
  const args = mode === 'compress' ? ['-c', '-q', `-T${options.threads ?? 0}`, `-${options.level ?? 3}`] : ['-d', '-c', '-q']
  return childStream({ command: options.command ?? 'zstd', args, label: `zstd ${mode}`, packageName: 'zstd', signal: options.signal })
}
