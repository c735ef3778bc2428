/**
 * @module tasks/countingStorage
 * The same storage with every opened object counted: a task's progress is the bytes it read from the
 * storage (the snapshot's size is the total), whatever reads them (sha256 check, decryption, tar).
 */
import { Transform, type Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { Storage } from '../../storages/types.js'

export function countingStorage(storage: Storage, count: (bytes: number) => void): Storage {
  const open = async (key: string): Promise<Readable> => {
    const source = await storage.open(key)
    // Counted in the transform, not with a 'data' listener (that would start the flow before the reader is there).
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        count(chunk.length)
        done(null, chunk)
      },
    })
    // An error of either side ends both (the reader sees the storage's error).
    pipeline(source, counted).catch(() => {})
    return counted
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
