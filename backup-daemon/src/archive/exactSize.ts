/**
 * @module archive/exactSize
 * A transform that passes exactly `size` bytes: extra bytes are dropped and missing ones are zeros.
 * Files change while a backup reads them; tar must get the length its header announced. The copy is
 * then not what is on disk, so `onChanged` is told (with the byte count actually read) and the run
 * warns about the file instead of reporting a silent success.
 */
import { Transform } from 'node:stream'

/** Called once when the stream's length differed from `size`: `read` bytes came (fewer: zero-padded; more: cut). */
export type SizeChangedListener = (read: number) => void

export function exactSize(size: number, onChanged?: SizeChangedListener): Transform {
  let seen = 0
  const source = { errored: undefined as Error | undefined }
  const transform = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      const room = size - seen
      seen += chunk.length
      if (room <= 0) return callback()
      callback(null, chunk.length <= room ? chunk : chunk.subarray(0, room))
    },
    flush(callback) {
      if (source.errored) return callback(source.errored)
      if (seen !== size) onChanged?.(seen)
      let missing = size - seen
      while (missing > 0) {
        const n = Math.min(missing, 64 * 1024)
        this.push(Buffer.alloc(n))
        missing -= n
      }
      callback()
    },
  })
  // Errors of the file stream (abort, I/O) must fail the entry, not be padded over.
  transform.on('pipe', (src: NodeJS.ReadableStream) => src.on('error', (err: Error) => transform.destroy(err)))
  return transform
}
