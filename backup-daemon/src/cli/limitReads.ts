/**
 * @module cli/limitReads
 * `--limit-download RATE` of `verify` and `restore` (restic's flag of the same name): every object read
 * from the storage is paced to at most `bytesPerSecond` in all, so checking a snapshot on a remote
 * storage does not fill the server's uplink. The pace is one token bucket for the whole command (every
 * storage and every object it reads), refilled by time, so a slow reader is never held longer than needed.
 */
import { Transform, type Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { setTimeout as delay } from 'node:timers/promises'
import type { Storage } from '../storages/types.js'

/** `--limit-download` as given: KiB/s as a plain number (restic's unit), or with a unit (`512K`, `10M`, `1G` per second). */
export function parseRate(command: string, value: string | undefined): number | { error: string } | undefined {
  if (value === undefined) return undefined
  const match = /^(\d+(?:\.\d+)?)\s*([kmg]?)(?:i?b)?(?:\/s)?$/i.exec(value.trim())
  const unit = { '': 1024, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[(match?.[2] ?? '').toLowerCase() as '' | 'k' | 'm' | 'g']
  const bytes = match ? Number(match[1]) * unit : NaN
  if (!(bytes >= 1024))
    return {
      error: `${command}: --limit-download "${value}" is not a rate of at least 1 KiB/s; give KiB/s (e.g. --limit-download 2048) or a unit (e.g. --limit-download 2M)`,
    }
  return Math.floor(bytes)
}

/** One pace for every storage a command reads: wraps each so that together they read at most the rate. */
export interface ReadLimiter {
  wrap(storage: Storage): Storage
}

export function createReadLimiter(bytesPerSecond: number): ReadLimiter {
  // The bucket holds at most a tenth of a second of bytes: short bursts, steady pace.
  const capacity = Math.max(65536, bytesPerSecond / 10)
  let tokens = capacity
  let filledAt = Date.now()
  const take = async (bytes: number) => {
    for (;;) {
      const now = Date.now()
      tokens = Math.min(capacity, tokens + ((now - filledAt) * bytesPerSecond) / 1000)
      filledAt = now
      if (tokens >= Math.min(bytes, capacity)) {
        tokens -= bytes
        return
      }
      await delay(Math.ceil(((Math.min(bytes, capacity) - tokens) * 1000) / bytesPerSecond))
    }
  }
  return {
    wrap(storage) {
      const open = async (key: string): Promise<Readable> => {
        const source = await storage.open(key)
        const paced = new Transform({
          transform(chunk: Buffer, _encoding, done) {
            take(chunk.length).then(() => done(null, chunk), done)
          },
        })
        pipeline(source, paced).catch(() => {})
        return paced
      }
      // A Proxy, not a copy: storages are class instances whose methods need their own `this` (as repository/archives/readingStorage).
      return new Proxy(storage, {
        get(target, property, receiver) {
          if (property === 'open') return open
          const value: unknown = Reflect.get(target, property, receiver)
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value
        },
      })
    },
  }
}
