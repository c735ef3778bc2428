/**
 * @module archive/createArchive
 * Turns the entries of the sources into one tar (optionally gzip, zstd or xz compressed) byte stream, or
 * a zip (`archive/createZip.ts`). Entries are added one at
 * a time and each waits until tar-stream has taken its bytes, so nothing is read faster than the
 * consumer writes: memory stays flat whatever the size of the data. Aborting `signal` destroys the
 * stream with the abort reason (the file being read is closed too).
 */
import { PassThrough, Transform, type Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import tar from 'tar-stream'
import type { Compression } from '../config/types.js'
import type { Source, SourceEntry } from '../sources/types.js'
import { coalesce } from './coalesce.js'
import { createZip } from './createZip.js'
import { exactSize } from './exactSize.js'
import { memoryGovernor } from './memoryGovernor.js'
import { compressionThreads } from './compressionThreads.js'
import { parallelGzip } from './parallelGzip.js'
import { readAhead } from './readAhead.js'
import { spoolToFile } from './spoolToFile.js'
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
}

export function createArchive(sources: Source[], options: ArchiveOptions): Readable {
  const { signal } = options
  if (options.compression === 'zip') return createZip(sources, options)
  const pack = tar.pack()
  const fill = async () => {
    for (const source of sources) {
      options.onSource?.(source)
      // Entries pulled and small files read ahead of the writer, taken in order (`archive/readAhead.ts`).
      for await (const { entry, data } of readAhead(source.entries(signal), signal)) {
        signal.throwIfAborted()
        await addEntry(pack, entry, signal, options.onFileChanged, data)
      }
    }
    pack.finalize()
  }
  // tar-stream's pack is a streamx stream; hand its bytes to a Node stream so consumers get the usual API.
  // The consumer sees errors when it reads; the listener keeps an unread error from crashing the process.
  const out = new PassThrough({ highWaterMark: 256 * 1024 }).on('error', () => {})
  const stages: NodeJS.ReadWriteStream[] = []
  const threads = options.threads ?? compressionThreads()
  if (options.compression === 'tar.gz') {
    // Independent gzip members compressed on every core, emitted in order (`archive/parallelGzip.ts`).
    stages.push(parallelGzip({ level: options.level ?? 6, threads, signal }))
  } else {
    // Fewer, larger chunks for the pipe to zstd/xz, the hash and the storage writes (`archive/coalesce.ts`).
    stages.push(coalesce())
  }
  if (options.compression === 'tar.zst') {
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
  pipeline([pack as unknown as Readable, counter, ...stages, out], { signal }).catch((err) => out.destroy(err))
  fill().catch((err) => {
    pack.destroy(err)
    out.destroy(err)
  })
  return out
}

async function addEntry(
  pack: tar.Pack,
  entry: SourceEntry,
  signal: AbortSignal,
  onChanged?: ArchiveOptions['onFileChanged'],
  preread?: Promise<Buffer>,
): Promise<void> {
  const changed = (read: number) => onChanged?.(entry.name, entry.size ?? 0, read)
  const header: Partial<tar.Header> & { name: string } = { name: entry.name, type: entry.type, mode: entry.mode, mtime: entry.mtime }
  if (entry.type === 'symlink') header.linkname = entry.linkname ?? ''
  if (entry.type !== 'file' || !entry.open) {
    await new Promise<void>((resolve, reject) => pack.entry(header, (err) => (err ? reject(err) : resolve())))
    return
  }
  if (entry.read && entry.size !== undefined) {
    const read = await (preread ?? entry.read(signal))
    if (read.length !== entry.size) changed(read.length)
    const data = fitTo(read, entry.size)
    header.size = data.length
    await new Promise<void>((resolve, reject) => pack.entry(header, data, (err) => (err ? reject(err) : resolve())))
    return
  }
  let body: Readable
  let size: number
  let cleanup = async () => {}
  if (entry.size === undefined) {
    // Unknown length (a database dump): tar needs it in the header, so spool to a temporary file first.
    const spooled = await spoolToFile(entry.open(signal), signal)
    ;({ size, cleanup } = spooled)
    body = spooled.open()
  } else {
    size = entry.size
    // A file that grows or shrinks while it is read is cut or padded to the size announced in the header.
    body = entry.open(signal).pipe(exactSize(size, changed))
  }
  try {
    header.size = size
    await new Promise<void>((resolve, reject) => {
      const sink = pack.entry(header, (err) => (err ? reject(err) : resolve()))
      // The entry's failure arrives through the callback; without a listener Node's pipe rethrows it.
      sink.on('error', () => {})
      body.on('error', (err) => {
        sink.destroy(err)
        reject(err)
      })
      body.pipe(sink as unknown as NodeJS.WritableStream)
    })
  } finally {
    await cleanup()
  }
}

/** The bytes cut or zero-padded to the size the header announces (the file changed since its lstat). */
function fitTo(data: Buffer, size: number): Buffer {
  if (data.length === size) return data
  if (data.length > size) return data.subarray(0, size)
  return Buffer.concat([data, Buffer.alloc(size - data.length)])
}
