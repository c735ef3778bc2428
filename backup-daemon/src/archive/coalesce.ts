/**
 * @module archive/coalesce
 * Joins small chunks into larger ones. tar-stream pushes every 512-byte header, every small file's
 * bytes and every padding as a chunk of its own; each chunk downstream is a hash update, a pipe or file
 * write and a few stream callbacks. For a tree of tiny files that per-chunk cost dominates, so chunks
 * are gathered until `size` bytes (a chunk already that large passes without a copy).
 */
import { Transform, type TransformCallback } from 'node:stream'

export function coalesce(size = 128 * 1024): Transform {
  let pending: Buffer[] = []
  let pendingBytes = 0
  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      if (pendingBytes === 0 && chunk.length >= size) {
        callback(null, chunk)
        return
      }
      pending.push(chunk)
      pendingBytes += chunk.length
      if (pendingBytes >= size) {
        const joined = Buffer.concat(pending, pendingBytes)
        pending = []
        pendingBytes = 0
        callback(null, joined)
        return
      }
      callback()
    },
    flush(callback: TransformCallback) {
      if (pendingBytes > 0) this.push(Buffer.concat(pending, pendingBytes))
      pending = []
      callback()
    },
  })
}
