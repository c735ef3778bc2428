/**
 * @module archive/xzStream
 * xz through the `xz` command (Debian package `xz-utils`), multi-threaded (`-T0`, as the original
 * service's `tar -I "xz -T0"`): Node has no xz, and a child process streams with bounded memory and
 * uses the other cores. `tar -xJf` and `xz -d` read the result.
 */
import type { Duplex } from 'node:stream'
import { childStream } from './childStream.js'

export interface XzOptions {
  /** Preset 0-9. @default 6 (xz's own default) */
  level?: number
  /** Compression threads (`-T`; 0 = one per core). @default 0 */
  threads?: number
  signal?: AbortSignal
  /** The xz binary. @default "xz" on PATH */
  command?: string
}

/** A Duplex: bytes in, xz-compressed (or decompressed) bytes out; errors when xz fails or is missing. */
export function xzStream(mode: 'compress' | 'decompress', options: XzOptions = {}): Duplex {
  const args = mode === 'compress' ? ['-c', '-q', `-T${options.threads ?? 0}`, `-${options.level ?? 6}`] : ['-d', '-c', '-q', '-T0']
  return childStream({ command: options.command ?? 'xz', args, label: `xz ${mode}`, packageName: 'xz-utils', signal: options.signal })
}
