/**
 * @module archive/createArchive
 * Turns the entries of the sources into one tar (optionally gzip, zstd or xz compressed) byte stream, or
 * a zip (`archive/createZip.ts`). The tar is built by `tar/tarWriter.ts` into ~256 KiB chunks, pulled
 * by the stream: nothing is read faster than the consumer writes, so memory stays flat whatever the size
 * of the data. Every source hands over its entries in batches (`Source.batches`): small files already
 * read (`data`, the local source) cost a few copies each, streamed ones are read as the tar needs them;
 * a source's own tar bytes (`Source.tarChunks`) are taken as they are when a core is spare. Aborting
 * `signal` destroys the stream with the abort reason (the file being read is closed too).
 *
 * A tar ends with the snapshot's record (`tar/snapshotRecord.ts`): every file entry's path, size and
 * digest (the tar writer computes them as it writes, the local source's worker likewise), and what each
 * source recorded (`Source.recorded`). A zip carries none.
 */
import { availableParallelism } from 'node:os'
import { PassThrough, Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { Compression } from '../config/types.js'
import type { Source, SourceEntry } from '../sources/types.js'
import { recordDigest, type DigestKind } from '../tar/fileDigest.js'
import { recordEntryName, type SnapshotRecord } from '../tar/snapshotRecord.js'
import { RecordSpool } from './recordSpool.js'
import { createZip } from './createZip.js'
import { memoryGovernor } from './memoryGovernor.js'
import { compressionThreads } from './compressionThreads.js'
import { parallelGzip } from './parallelGzip.js'
import { spoolToFile } from './spoolToFile.js'
import { TarWriter } from '../tar/tarWriter.js'
import { xzStream } from './xzStream.js'
import { zstdStream } from './zstdStream.js'

export interface ArchiveOptions {
  compression: Compression
  signal: AbortSignal
  /** gzip level (1 fastest to 9 smallest; @default 6, the level of `tar -czf`), zstd level (1 to 19; @default 3) or xz preset (@default 6). */
  level?: number
  /** Threads compressing (gzip worker threads, `zstd -T`, `xz -T`). @default `compressionThreads()`: `BACKUP_DAEMON_COMPRESS_THREADS`, else every core */
  threads?: number
  /** Called once per source before its entries are read. */
  onSource?(source: Source): void
  /** A file's length changed while it was read: its copy was zero-padded (`read` < `announced`) or cut. */
  onFileChanged?(name: string, announced: number, read: number): void
  /**
   * The digest of the record's files, or `false` for no record (the record's cost bench).
   * @default `BACKUP_DAEMON_RECORD` (`off`, `crc32`, `md5`, `sha256`: the bench's switch for a whole run), else `recordDigest` (crc32)
   */
  record?: DigestKind | false
}

export function createArchive(sources: Source[], options: ArchiveOptions): Readable {
  const { signal } = options
  if (options.compression === 'zip') return createZip(sources, options)
  const threads = options.threads ?? compressionThreads()
  // A source's own tar builder (the local source's worker thread) needs a core of its own: used when the
  // compression leaves one. On 2 cores (measured): plain tar of 200k tiny files 1.19x faster with it;
  // tar.zst, whose zstd threads already fill both cores, 15-50% slower and 20-35 MiB more RSS.
  const spareCore = options.compression === 'tar' || threads < availableParallelism()
  const tar = Readable.from(tarChunks(sources, options, spareCore), { objectMode: false, highWaterMark: 256 * 1024 })
  // The consumer sees errors when it reads; the listener keeps an unread error from crashing the process.
  const out = new PassThrough({ highWaterMark: 256 * 1024 }).on('error', () => {})
  const stages: NodeJS.ReadWriteStream[] = []
  if (options.compression === 'tar.gz') {
    // Independent gzip members compressed on every core, emitted in order (`archive/parallelGzip.ts`).
    stages.push(parallelGzip({ level: options.level ?? 6, threads, signal }))
  } else if (options.compression === 'tar.zst') {
    stages.push(zstdStream('compress', { level: options.level ?? 3, threads, signal }))
  } else if (options.compression === 'tar.xz') {
    stages.push(xzStream('compress', { level: options.level ?? 6, threads, signal }))
  }
  // Count the bytes going into tar (reads) for the memory governor; gzip's output is smaller.
  const account = memoryGovernor()
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      account(chunk.length)
      callback(null, chunk)
    },
  })
  // Before the pipeline's own listener (which destroys every stage with a generic AbortError): the consumer gets the reason given.
  const abort = () => out.destroy(signal.reason)
  signal.addEventListener('abort', abort, { once: true })
  out.once('close', () => signal.removeEventListener('abort', abort))
  pipeline([tar, counter, ...stages, out], { signal }).catch((err) => out.destroy(err))
  return out
}

/** The tar's bytes in ~256 KiB chunks (1 MiB ones raised peak RSS by ~15 MiB, measured), built as the stream pulls them. */
async function* tarChunks(sources: Source[], options: ArchiveOptions, ownBuilders: boolean): AsyncGenerator<Buffer> {
  const { signal } = options
  const record = options.record ?? recordOf(process.env.BACKUP_DAEMON_RECORD)
  const tar = new TarWriter(undefined, record || undefined)
  // The record's files go to a temporary file as they are archived (`recordSpool.ts`: flat memory).
  const spool = record ? new RecordSpool(record, signal) : undefined
  const onRecorded = (items: Uint8Array) => spool!.add(items)
  const recordedBySource: SnapshotRecord['sources'] = {}
  const changed = (entry: SourceEntry, read: number) => options.onFileChanged?.(entry.name, entry.size ?? 0, read)
  let done = false
  try {
    for (const source of sources) {
      options.onSource?.(source)
      // Tar bytes the source builds itself (the local source, in a worker thread): what is written so far goes first.
      const hooks = { onFileChanged: options.onFileChanged, ...(record && { record, onRecorded }) }
      const own = ownBuilders ? source.tarChunks?.(signal, hooks) : undefined
      if (own) {
        tar.flush()
        spool?.add(tar.takeRecorded())
        yield* tar.take()
        for await (const chunk of own) yield chunk
        keepRecorded(source, recordedBySource)
        continue
      }
      for await (const batch of source.batches(signal)) {
        for (const entry of batch) {
          signal.throwIfAborted()
          if (entry.type !== 'file' || (!entry.data && !entry.open)) {
            tar.entry(entry)
          } else if (entry.data) {
            // Copied into the tar's chunks before the next batch is asked for (`Source.batches`), or passed on
            // whole from 64 KiB; the local source reuses memory only for files under 32 KiB (`localWalk.ts`).
            const { data } = entry
            if (entry.size === undefined || data.length === entry.size) {
              tar.entry(entry, data)
            } else {
              changed(entry, data.length)
              tar.entry(entry, fitTo(data, entry.size))
            }
          } else {
            yield* streamEntry(tar, entry, signal, (read) => changed(entry, read))
          }
          if (tar.pending >= 256 * 1024) yield* tar.take()
        }
        spool?.add(tar.takeRecorded())
      }
      keepRecorded(source, recordedBySource)
    }
    if (spool) {
      tar.stopRecording()
      spool.add(tar.takeRecorded())
      const spooled = await spool.finish(recordedBySource)
      // A fixed mtime: the same sources give the same tar bytes, whichever way they were built.
      const entry: SourceEntry = { name: recordEntryName, type: 'file', mode: 0o644, mtime: new Date(0), size: spooled.size, open: () => spooled.open() }
      try {
        yield* streamEntry(tar, entry, signal, () => {})
      } finally {
        await spooled.cleanup()
      }
    }
    done = true
  } finally {
    if (!done) await spool?.discard()
  }
  tar.end()
  yield* tar.take()
}

/** `BACKUP_DAEMON_RECORD`'s digest: `off` for none; unset or unknown: the default. */
function recordOf(value: string | undefined): DigestKind | false {
  if (value === 'off') return false
  return value === 'crc32' || value === 'md5' || value === 'sha256' ? value : recordDigest
}

/** What the source recorded for the drill (`Source.recorded`), asked once its entries are all read. */
function keepRecorded(source: Source, into: SnapshotRecord['sources']): void {
  const recorded = source.recorded?.()
  if (recorded) into[source.name] = { type: source.type, recorded }
}

/**
 * A file whose bytes are streamed: cut or zero-padded to the size its header announces (it changed while
 * read); a stream of unknown length (a database dump) is spooled to a temporary file first.
 */
async function* streamEntry(tar: TarWriter, entry: SourceEntry, signal: AbortSignal, changed: (read: number) => void): AsyncGenerator<Buffer> {
  let body: Readable
  let size: number
  let cleanup = async () => {}
  if (entry.size === undefined) {
    const spooled = await spoolToFile(entry.open!(signal), signal)
    ;({ size, cleanup } = spooled)
    body = spooled.open()
  } else {
    size = entry.size
    body = entry.open!(signal)
  }
  try {
    tar.header(entry, size)
    let seen = 0
    for await (const chunk of body as AsyncIterable<Buffer>) {
      const room = size - seen
      seen += chunk.length
      if (room > 0) tar.write(chunk.length <= room ? chunk : chunk.subarray(0, room))
      if (seen > size) break
      if (tar.pending >= 256 * 1024) yield* tar.take()
    }
    if (seen !== size) changed(seen)
    for (let missing = size - seen; missing > 0; missing -= 64 * 1024) tar.write(Buffer.alloc(Math.min(missing, 64 * 1024)))
    tar.pad(size)
  } finally {
    body.destroy()
    await cleanup()
  }
}

/** The bytes cut or zero-padded to the size the header announces (the file changed since its stat). */
function fitTo(data: Buffer, size: number): Buffer {
  if (data.length === size) return data
  if (data.length > size) return data.subarray(0, size)
  return Buffer.concat([data, Buffer.alloc(size - data.length)])
}
