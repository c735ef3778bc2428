/**
 * @module archive/forEachTarEntry
 * Walks a tar stream one entry at a time, for `restore --to` and `restore --into-database`.
 * `tar-stream` is imported on the first walk: only the commands and requests that read a snapshot load it
 * (start-up time of `run` and `serve`, README "Start-up time"; tar is written by `tar/tarWriter.ts`).
 */
import type { Readable } from 'node:stream'
import type { ExtractEvents, Header } from 'tar-stream'

/** An entry's byte stream (a streamx Readable). */
export type TarEntryStream = ExtractEvents['entry'][1]

/**
 * Calls `handle` for every entry in order; `handle` reads (or drains) the entry's stream before its
 * promise settles. Resolves when the archive ends. A rejected `handle` stops the walk, destroys the
 * streams and rejects with `mapError(err)`.
 */
export async function forEachTarEntry(
  archive: Readable,
  handle: (header: Header, entry: TarEntryStream) => Promise<void>,
  mapError: (err: Error) => Error = (err) => err,
): Promise<void> {
  // An error of `archive` while the module loads is kept, not thrown as an unhandled 'error' event.
  let early: Error | undefined
  const keep = (err: Error) => (early ??= err)
  archive.on('error', keep)
  const { default: tar } = await import('tar-stream')
  archive.off('error', keep)
  if (early) throw early
  const extract = tar.extract()
  const done = new Promise<void>((resolve, reject) => {
    extract.on('entry', (header, entry, next) => {
      // A failing archive (a cancel aborts the storage read mid-entry) destroys the extractor, which destroys
      // the current entry with that error; the walk reports it through its own promise, and a handler that
      // is between two listeners at that moment must not turn it into an uncaught 'error' event (it once
      // crashed a daemon whose restore was cancelled while it wrote).
      entry.on('error', () => {})
      handle(header, entry).then(
        () => {
          entry.resume()
          next()
        },
        (err: Error) => {
          // Settle here: tar-stream's next(err) destroys the extractor without an 'error' event.
          reject(mapError(err))
          entry.destroy()
          extract.destroy(err)
          archive.destroy()
        },
      )
    })
    extract.on('finish', resolve)
    extract.on('error', reject)
  })
  archive.on('error', (err) => extract.destroy(err))
  archive.pipe(extract as unknown as NodeJS.WritableStream)
  await done
}
