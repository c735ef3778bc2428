/**
 * @module storages/sftp/remoteStreams
 * Streams over one remote file's SFTP handle, with several requests in flight: one request per
 * round trip would cap a 50 ms link at ~1 MiB/s with 64 KiB requests. Memory stays bounded by the
 * window (`inFlight` x request size). The writer finishes only once the server acknowledged every
 * write and the close of the handle, so "finished" means the server has every byte.
 */
import { Readable, Writable } from 'node:stream'
import type { SFTPWrapper } from 'ssh2'

const requestSize = 64 * 1024

/**
 * Writes into `path` (created with mode 0600: snapshots may hold secrets). Up to `inFlight` writes
 * are outstanding; a failed one fails the stream at once, also while nothing more is written.
 */
export function remoteWriter(sftp: SFTPWrapper, path: string, inFlight = 8): Writable {
  let handle: Buffer | undefined
  let position = 0
  let outstanding = 0
  let failure: Error | undefined
  let waiting: (() => void) | undefined
  const settle = () => {
    const next = waiting
    waiting = undefined
    next?.()
  }
  const stream = new Writable({
    highWaterMark: requestSize,
    construct(callback) {
      sftp.open(path, 'w', 0o600, (err, opened) => {
        handle = opened
        callback(err ?? null)
      })
    },
    write(chunk: Buffer, _encoding, callback) {
      if (failure) return callback(failure)
      outstanding++
      sftp.write(handle!, chunk, 0, chunk.length, position, (err) => {
        outstanding--
        if (err && !failure) {
          failure = err
          // No write or end waits to be told (the source is between chunks): fail now, not at its next chunk.
          if (!waiting) stream.destroy(err)
        }
        settle()
      })
      position += chunk.length
      if (outstanding < inFlight) return callback()
      waiting = () => callback(failure ?? null)
    },
    final(callback) {
      const close = () => {
        if (outstanding > 0) {
          waiting = close
          return
        }
        if (failure) return callback(failure)
        const open = handle!
        handle = undefined
        sftp.close(open, (err) => callback(err ?? null))
      }
      close()
    },
    destroy(err, callback) {
      // Not waited for: on a dead connection ssh2 never answers, and the handle dies with it anyway.
      if (handle) sftp.close(handle, () => {})
      handle = undefined
      callback(err)
    },
  })
  return stream
}

/**
 * Reads `size` bytes of an opened file, `inFlight` requests ahead, in order. `onClose` runs once the handle is
 * closed; `explain` words a failed read for the stream's error (a lost connection says so).
 */
export function remoteReader(
  sftp: SFTPWrapper,
  handle: Buffer,
  size: number,
  onClose: () => void,
  explain: (err: Error) => Error = (err) => err,
  inFlight = 8,
): Readable {
  let next = 0
  const ahead: Promise<Buffer>[] = []
  const readAt = (start: number, length: number): Promise<Buffer> =>
    new Promise((resolve, reject) => {
      const buffer = Buffer.allocUnsafe(length)
      let filled = 0
      const more = () =>
        sftp.read(handle, buffer, filled, length - filled, start + filled, (err, bytesRead) => {
          // ssh2 reports end of file as an error with code SSH_FX_EOF (1) or as 0 bytes.
          if (err && (err as { code?: unknown }).code !== 1) return reject(err)
          if (err || bytesRead === 0) return resolve(buffer.subarray(0, filled))
          filled += bytesRead
          // A server may answer with less than asked before the end: ask for the rest.
          if (filled < length) more()
          else resolve(buffer)
        })
      more()
    })
  return new Readable({
    highWaterMark: requestSize,
    read() {
      while (ahead.length < inFlight && next < size) {
        const length = Math.min(requestSize, size - next)
        const request = readAt(next, length)
        // A request ahead may fail (a dead connection: "No response from server") before it is waited for:
        // handled at once, or it is an unhandled rejection that ends the whole daemon. Its turn reports it.
        request.catch(() => {})
        ahead.push(request)
        next += length
      }
      const first = ahead.shift()
      if (!first) return void this.push(null)
      first.then(
        (chunk) => {
          if (chunk.length === 0) {
            // The file shrank while being read: end with what there is.
            ahead.length = 0
            next = size
            this.push(null)
          } else this.push(chunk)
        },
        (err: Error) => this.destroy(explain(err)),
      )
    },
    destroy(err, callback) {
      ahead.length = 0
      // Not waited for (see remoteWriter).
      sftp.close(handle, () => {})
      onClose()
      callback(err)
    },
  })
}
