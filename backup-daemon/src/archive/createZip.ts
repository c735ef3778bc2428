/**
 * @module archive/createZip
 * The `zip` compression: the sources' entries written by `yazl` (a streaming zip writer: deflate per
 * entry, sizes and CRC in data descriptors, zip64 when needed), so memory does not depend on the data's
 * size. The sources' batches (`Source.batches`) are read one entry at a time: the next is added only
 * when yazl has read the previous one's bytes, so files are opened one after the other; a small file's
 * `data` is copied first, since zlib may still be reading it when the source reuses its memory. Symbolic links are stored the way Info-ZIP stores
 * them (mode `0120777` in the external attributes, the target as the data), so `unzip` recreates them.
 * Aborting `signal` destroys the stream with the abort reason.
 * `yazl` is imported when a zip is written, not when the module loads: a daemon whose jobs write tar never
 * loads it (the kind-specific dependencies load lazily, for start-up time: README "Start-up time").
 */
import { PassThrough, Readable } from 'node:stream'
import type yazl from 'yazl'
import type { Source, SourceEntry } from '../sources/types.js'
import { exactSize } from './exactSize.js'
import { memoryGovernor } from './memoryGovernor.js'

export interface ZipOptions {
  signal: AbortSignal
  onSource?(source: Source): void
}

const fileType = { file: 0o100000, directory: 0o040000, symlink: 0o120000 } as const

export function createZip(sources: Source[], options: ZipOptions): Readable {
  const { signal } = options
  const out = new PassThrough({ highWaterMark: 256 * 1024 }).on('error', () => {})
  const fail = (err: unknown) => out.destroy(err instanceof Error ? err : new Error(String(err)))
  const abort = () => fail(signal.reason)
  signal.addEventListener('abort', abort, { once: true })
  out.once('close', () => signal.removeEventListener('abort', abort))

  // Settles (rejects) when the output ends early (a failure, the consumer gone): the entry being added
  // then stops waiting for yazl, and its file stream is closed.
  const stopped = new Promise<never>((_resolve, reject) => out.once('close', () => reject(new Error('the zip stream was closed'))))
  stopped.catch(() => {})
  const fill = async () => {
    const { default: yazlModule } = await import('yazl')
    // The consumer may be gone already (a failure or an abort while the module loaded).
    if (out.destroyed) return
    const zip = new yazlModule.ZipFile()
    zip.on('error', fail)
    const account = memoryGovernor()
    const output = zip.outputStream as unknown as Readable
    output.on('data', (chunk: Buffer) => account(chunk.length))
    output.on('error', fail)
    output.pipe(out)
    for (const source of sources) {
      options.onSource?.(source)
      for await (const batch of source.batches(signal)) {
        for (const entry of batch) {
          signal.throwIfAborted()
          await addEntry(zip, entry, signal, fail, stopped)
        }
      }
    }
    zip.end()
  }
  fill().catch(fail)
  return out
}

async function addEntry(zip: yazl.ZipFile, entry: SourceEntry, signal: AbortSignal, fail: (err: unknown) => void, stopped: Promise<never>): Promise<void> {
  const mtime = entry.mtime ?? new Date()
  const mode = (entry.mode ?? (entry.type === 'directory' ? 0o755 : 0o644)) & 0o7777
  if (entry.type === 'directory') {
    zip.addEmptyDirectory(entry.name.replace(/\/+$/, ''), { mtime, mode: fileType.directory | mode })
    return
  }
  if (entry.type === 'symlink') {
    zip.addBuffer(Buffer.from(entry.linkname ?? ''), entry.name, { mtime, mode: fileType.symlink | 0o777, compress: false })
    return
  }
  if (entry.type !== 'file' || (!entry.open && !entry.data)) return
  // A copy: `data` is valid only until the next batch, and the zip's deflate stream may still hold it then.
  const data = entry.data && Buffer.from(entry.data)
  const open = data ? () => Readable.from([data]) : entry.open!.bind(entry)
  let body: Readable | undefined
  // Resolves when yazl has read the whole entry: the next file is opened only then.
  const read = new Promise<void>((resolve, reject) => {
    const sizeOption = entry.size === undefined ? {} : { size: entry.size }
    zip.addReadStreamLazy(entry.name, { mtime, mode: fileType.file | mode, ...sizeOption }, (callback) => {
      let stream: Readable = open(signal)
      // A file that changed since its lstat is cut or padded to the announced size (yazl checks it).
      if (entry.size !== undefined) stream = stream.pipe(exactSize(entry.size))
      body = stream
      stream.once('end', () => resolve())
      stream.once('error', (err) => {
        reject(err)
        fail(err)
      })
      callback(null, stream)
    })
  })
  read.catch(() => {})
  try {
    await Promise.race([read, stopped])
  } catch (err) {
    body?.destroy()
    throw err
  }
}
