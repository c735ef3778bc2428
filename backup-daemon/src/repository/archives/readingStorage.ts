/**
 * @module repository/archives/readingStorage
 * The same storage as a read of a snapshot sees it (`ReadOptions`): every object it opens counted
 * (`onBytes`: a task's progress is the bytes read from the storage, whatever reads them: sha256 check,
 * decryption, tar) and destroyed when the read is cancelled, so a cancel stops a part at once rather
 * than at its end (a paced or slow read of a large part would otherwise go on).
 */
import { Transform, type Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { Storage } from '../../storages/types.js'
import type { ReadOptions } from '../types.js'

export function readingStorage(storage: Storage, { onBytes, signal }: Pick<ReadOptions, 'onBytes' | 'signal'>): Storage {
  if (!onBytes && !signal) return storage
  const open = async (key: string): Promise<Readable> => {
    signal?.throwIfAborted()
    let stream = await storage.open(key)
    if (onBytes) {
      // Counted in the transform, not with a 'data' listener (that would start the flow before the reader is there).
      const counted = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          onBytes(chunk.length)
          done(null, chunk)
        },
      })
      // An error of either side ends both (the reader sees the storage's error).
      pipeline(stream, counted).catch(() => {})
      stream = counted
    }
    if (signal) {
      const opened = stream
      const stop = () => opened.destroy(signal.reason instanceof Error ? signal.reason : new Error('cancelled'))
      signal.addEventListener('abort', stop, { once: true })
      opened.once('close', () => signal.removeEventListener('abort', stop))
    }
    return stream
  }
  // A Proxy, not a copy: storages are class instances whose methods need their own `this`.
  return new Proxy(storage, {
    get(target, property, receiver) {
      if (property === 'open') return open
      const value: unknown = Reflect.get(target, property, receiver)
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value
    },
  })
}
