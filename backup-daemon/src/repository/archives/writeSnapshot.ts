/**
 * @module repository/archives/writeSnapshot
 * Writes one archive stream to every storage of a job at once: cut into parts when `chunkSize` is set,
 * hashed on the way, each part stored under a temporary name, then committed, then the manifest last.
 * The slowest storage sets the pace (backpressure), so memory does not depend on the archive's size.
 * On any failure or abort, every object of this run is removed again.
 */
import { createHash } from 'node:crypto'
import { once } from 'node:events'
import { PassThrough, Readable } from 'node:stream'
import type { Compression, EncryptionConfig } from '../../config/types.js'
import type { PendingObject, Storage } from '../../storages/types.js'
import { jobLayout, manifestKey, partKey, partsFolder, tempDir, wholeKey, type JobLayout, type SnapshotEncryption } from './layout.js'
import type { Manifest } from './manifest.js'

export interface WriteSnapshotOptions {
  archive: Readable
  storages: Storage[]
  job: string
  /** Where the job's snapshots are in each storage (same order; its `includeJobName`). @default `J/` in every storage */
  layouts?: readonly JobLayout[]
  name: string
  compression: Compression
  /** Recorded in the manifest (type, and the cipher for openssl; never a secret): the archive bytes are encrypted. */
  encryption?: SnapshotEncryption | EncryptionConfig
  createdAt: Date
  chunkSize?: number
  signal: AbortSignal
  /** Every archive byte read is added here (the run's progress; a plain number, no event per chunk). */
  counters?: { bytesWritten: number }
}

interface OpenPart {
  streams: PassThrough[]
  writes: Promise<PendingObject>[]
  /** Undefined when the archive is not split: its one part's hash is the whole archive's. */
  hash: ReturnType<typeof createHash> | undefined
  size: number
}

export async function writeSnapshot(options: WriteSnapshotOptions): Promise<Manifest> {
  const { archive, storages, job, signal, counters } = options
  const layoutIn = (storage: Storage): JobLayout => options.layouts?.[storages.indexOf(storage)] ?? jobLayout(job)
  const chunkSize = options.chunkSize ?? Infinity
  const whole = createHash('sha256')
  // sha256 is the main thread's largest cost per byte (measured: a fifth of a plain tar of tiny files); unsplit, one hash serves both.
  const split = options.chunkSize !== undefined
  let wholeDigest: string | undefined
  const digestWhole = () => (wholeDigest ??= whole.digest('hex'))
  const parts: { pending: PendingObject[]; size: number; sha256: string }[] = []
  const pendingAll: PendingObject[] = []
  const committed: { storage: Storage; key: string }[] = []
  let part: OpenPart | undefined

  const openPart = (): OpenPart => {
    // Errors reach us through the storages' write promises; the listener keeps a destroyed stream from crashing the process.
    const streams = storages.map(() => new PassThrough({ highWaterMark: 256 * 1024 }).on('error', () => {}))
    const writes = storages.map((storage, i) =>
      storage.write(tempDir(layoutIn(storage)), streams[i]!, signal).catch((err: unknown) => Promise.reject(storageError(storage, err))),
    )
    // Keep the handles as soon as they exist, so a failure elsewhere can still discard them; a write that
    // fails before reading its stream must end that stream, or the loop below would wait for 'drain' forever.
    writes.forEach((write, i) =>
      write.then(
        (p) => pendingAll.push(p),
        (err: Error) => streams[i]!.destroy(err),
      ),
    )
    return { streams, writes, hash: split ? createHash('sha256') : undefined, size: 0 }
  }
  const closePart = async (open: OpenPart) => {
    for (const stream of open.streams) stream.end()
    const pending = await Promise.all(open.writes)
    parts.push({ pending, size: open.size, sha256: open.hash ? open.hash.digest('hex') : digestWhole() })
  }
  const writeAll = async (open: OpenPart, chunk: Buffer) => {
    // A storage that failed destroyed its stream: stop here rather than wait for a 'drain'. A backend's
    // pipeline may have destroyed it with its bare error before its write promise rejected: named here too.
    const broken = open.streams.findIndex((stream) => stream.destroyed)
    if (broken !== -1) throw storageError(storages[broken]!, open.streams[broken]!.errored ?? new Error('stopped reading'))
    open.hash?.update(chunk)
    open.size += chunk.length
    const waits = open.streams.flatMap((stream, i) =>
      stream.write(chunk) ? [] : [once(stream, 'drain', { signal }).catch((err: unknown) => Promise.reject(storageError(storages[i]!, err)))],
    )
    if (waits.length) await Promise.all(waits)
  }

  try {
    for await (const data of archive) {
      let chunk = data as Buffer
      whole.update(chunk)
      if (counters) counters.bytesWritten += chunk.length
      while (chunk.length > 0) {
        part ??= openPart()
        const room = chunkSize - part.size
        const slice = chunk.length <= room ? chunk : chunk.subarray(0, room)
        chunk = chunk.subarray(slice.length)
        await writeAll(part, slice)
        if (part.size >= chunkSize) {
          const full = part
          part = undefined
          await closePart(full)
        }
      }
    }
    signal.throwIfAborted()
    if (part) {
      const last = part
      part = undefined
      await closePart(last)
    }
    const total = parts.reduce((sum, p) => sum + p.size, 0)
    // Keys per storage: each has its own layout (`includeJobName`); each storage gets a manifest with its own keys.
    const keysIn = (storage: Storage | undefined) => {
      const layout = storage ? layoutIn(storage) : job
      const folder = partsFolder(layout, options.name, parts.length, total)
      return parts.map((_, index) => (split ? partKey(folder, options.name, index) : wholeKey(layout, options.name)))
    }
    const keys = keysIn(undefined)
    const manifest: Manifest = {
      version: 1,
      job,
      name: options.name,
      compression: options.compression,
      ...encryptionRecord(options.encryption),
      createdAt: options.createdAt.toISOString(),
      size: total,
      sha256: digestWhole(),
      chunkSize: options.chunkSize ?? null,
      parts: parts.map((p, index) => ({ key: keys[index]!, size: p.size, sha256: p.sha256 })),
    }
    const storageKeys = storages.map(keysIn)
    for (const [index, p] of parts.entries()) {
      for (const [s, pending] of p.pending.entries()) {
        signal.throwIfAborted()
        const key = storageKeys[s]![index]!
        await pending.commit(key).catch((err: unknown) => Promise.reject(storageError(storages[s]!, err)))
        committed.push({ storage: storages[s]!, key })
      }
    }
    // The manifest goes last: its presence is the commit point of the whole snapshot.
    for (const [s, storage] of storages.entries()) {
      signal.throwIfAborted()
      const own: Manifest = { ...manifest, parts: manifest.parts.map((part, index) => ({ ...part, key: storageKeys[s]![index]! })) }
      const body = Buffer.from(JSON.stringify(own, null, 2) + '\n')
      const pending = await storage
        .write(tempDir(layoutIn(storage)), Readable.from([body]), signal)
        .catch((err: unknown) => Promise.reject(storageError(storage, err)))
      pendingAll.push(pending)
      const key = manifestKey(layoutIn(storage), options.name)
      await pending.commit(key).catch((err: unknown) => Promise.reject(storageError(storage, err)))
      committed.push({ storage, key })
    }
    // With `includeJobName: false` the temporary objects went to `J/`: a delete below it removes that
    // folder again where folders exist (local), so the shared folder holds only snapshots.
    for (const storage of storages) {
      if (layoutIn(storage).prefix === '') await storage.delete(`${tempDir(layoutIn(storage))}/.done.incomplete`).catch(() => {})
    }
    return manifest
  } catch (err) {
    const reason = signal.aborted ? signal.reason : err
    archive.destroy()
    for (const stream of part?.streams ?? []) stream.destroy(reason instanceof Error ? reason : new Error(String(reason)))
    await Promise.allSettled(part?.writes ?? [])
    // Manifest first (un-commit), then the data.
    for (const { storage, key } of [...committed].reverse()) await storage.delete(key).catch(() => {})
    await Promise.allSettled(pendingAll.map((pending) => pending.discard()))
    throw err
  }
}

/** The errors `storageError` made (never named twice). */
const namedErrors = new WeakSet<Error>()

/** The run's error names the storage that failed (a job may write to several). */
function storageError(storage: Storage, err: unknown): Error {
  if (err instanceof Error && (err.name === 'AbortError' || namedErrors.has(err))) return err
  const message = err instanceof Error ? err.message : String(err)
  const named = new Error(`storage "${storage.name}" (${storage.type}) failed: ${message}`, { cause: err })
  namedErrors.add(named)
  return named
}

/** The manifest's `encryption` and `cipher` fields. */
function encryptionRecord(encryption: SnapshotEncryption | EncryptionConfig | undefined): Pick<Manifest, 'encryption' | 'cipher'> {
  if (encryption === undefined) return {}
  if (typeof encryption === 'string') return { encryption }
  return encryption.type === 'openssl' ? { encryption: 'openssl', cipher: encryption.cipher } : { encryption: 'age' }
}
