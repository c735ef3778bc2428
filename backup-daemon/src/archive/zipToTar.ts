/**
 * @module archive/zipToTar
 * Reads a zip snapshot as the tar stream every reader of snapshots takes (`forEachTarEntry`, so a zip's
 * entries go through the same path checks of `extractTo` as a tar's, and the same database restores).
 * A zip's directory is at its end, so the bytes are first spooled to a temporary file (disk, not
 * memory), then read entry by entry with `yauzl` (CRC and sizes checked) and re-packed by `tar-stream`
 * with their names, modes, times and symbolic links. The temporary file is removed when the stream ends
 * or fails. A zip that cannot be read fails the stream.
 * `yauzl` and `tar-stream` are imported when a zip is read: commands and daemons that never read a zip
 * snapshot do not load them (start-up time, README "Start-up time").
 */
import { PassThrough, Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type yauzl from 'yauzl'
import { spoolToFile } from './spoolToFile.js'

const typeBits = 0o170000
const typeOf = (entry: yauzl.Entry): 'file' | 'directory' | 'symlink' => {
  const unixMode = (entry.externalFileAttributes >>> 16) & 0xffff
  if (entry.fileName.endsWith('/') || (unixMode & typeBits) === 0o040000) return 'directory'
  if ((unixMode & typeBits) === 0o120000) return 'symlink'
  return 'file'
}

async function readAll(stream: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of stream) {
    size += (chunk as Buffer).length
    if (size > limit) throw new Error('symbolic link target too long')
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks)
}

/** The tar bytes of the zip in `zipBytes`. */
export function zipToTar(zipBytes: Readable, signal?: AbortSignal): Readable {
  const out = new PassThrough().on('error', () => {})
  const convert = async () => {
    // Loaded while the bytes are spooled (the spool takes `zipBytes` at once, as before).
    const modules = Promise.all([import('tar-stream'), import('yauzl')])
    modules.catch(() => {})
    const spooled = await spoolToFile(zipBytes, signal ?? new AbortController().signal)
    try {
      const [{ default: tar }, { default: yauzlModule }] = await modules
      const { path } = spooled
      const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
        yauzlModule.open(path, { lazyEntries: true, autoClose: false, strictFileNames: false, validateEntrySizes: true }, (err, file) =>
          err ? reject(new Error(`not a readable zip archive: ${err.message}`)) : resolve(file),
        ),
      )
      // yauzl reports errors through the callbacks of the calls below; an event between them must not crash.
      zip.on('error', () => {})
      const pack = tar.pack()
      const packed = pipeline(pack as unknown as Readable, out, { end: true })
      // Awaited on success; on a failure the error below is the one reported.
      packed.catch(() => {})
      try {
        for (;;) {
          signal?.throwIfAborted()
          const entry = await new Promise<yauzl.Entry | undefined>((resolve, reject) => {
            const onEntry = (e: yauzl.Entry) => {
              zip.off('end', onEnd)
              zip.off('error', reject)
              resolve(e)
            }
            const onEnd = () => {
              zip.off('entry', onEntry)
              zip.off('error', reject)
              resolve(undefined)
            }
            zip.once('entry', onEntry)
            zip.once('end', onEnd)
            zip.once('error', reject)
            zip.readEntry()
          })
          if (!entry) break
          const type = typeOf(entry)
          const unixMode = (entry.externalFileAttributes >>> 16) & 0o7777
          const header = {
            name: entry.fileName.replace(/\/+$/, ''),
            type,
            mtime: entry.getLastModDate(),
            mode: unixMode || (type === 'directory' ? 0o755 : 0o644),
          }
          if (type === 'directory') {
            await new Promise<void>((resolve, reject) => pack.entry(header, (err) => (err ? reject(err) : resolve())))
            continue
          }
          const data = await new Promise<Readable>((resolve, reject) => zip.openReadStream(entry, (err, stream) => (err ? reject(err) : resolve(stream))))
          if (type === 'symlink') {
            const linkname = (await readAll(data, 64 * 1024)).toString('utf8')
            await new Promise<void>((resolve, reject) => pack.entry({ ...header, linkname }, (err) => (err ? reject(err) : resolve())))
            continue
          }
          await new Promise<void>((resolve, reject) => {
            const sink = pack.entry({ ...header, size: entry.uncompressedSize }, (err) => (err ? reject(err) : resolve()))
            sink.on('error', () => {})
            data.on('error', (err) => {
              sink.destroy(err)
              reject(err)
            })
            data.pipe(sink as unknown as NodeJS.WritableStream)
          })
        }
        pack.finalize()
        await packed
      } catch (err) {
        pack.destroy(err as Error)
        throw err
      } finally {
        zip.close()
      }
    } finally {
      await spooled.cleanup()
    }
  }
  convert().catch((err: unknown) => out.destroy(err instanceof Error ? err : new Error(String(err))))
  return out
}
