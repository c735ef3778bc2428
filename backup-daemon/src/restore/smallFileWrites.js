/**
 * @module restore/smallFileWrites
 * The writing of a batch of small files, the same calls on either thread (`restore/smallFileWriter.ts`):
 * open with the restore's flags, write the whole body, fchmod where needed, futimes on the descriptor, close. Stops at
 * the first failure and says which file. Plain JavaScript: the worker thread (`smallFileWorker.js`)
 * imports it with no loader.
 *
 * A batch: `paths` (strings, or bytes for names that are not UTF-8), `modes`, `mtimes` (seconds),
 * `ends` (where each file's body ends in `data`), `flags` (the same for every file of a restore), and the
 * process's `umask` (what open takes from a new file's mode).
 */
import { closeSync, fchmodSync, futimesSync, openSync, writeSync } from 'node:fs'

/** Writes the batch's files in order; returns the first failure (its file's index and the error's fields), or undefined. */
export function writeBatch(batch) {
  const data = Buffer.from(batch.data.buffer, batch.data.byteOffset, batch.data.byteLength)
  let start = 0
  for (let i = 0; i < batch.paths.length; i++) {
    const end = batch.ends[i]
    try {
      // Created with its archived permission bits (set-id bits already taken out), inside the restore's private
      // folder; fchmod only where the umask took bits away or the sticky bit is asked: one call in five saved.
      const mode = batch.modes[i]
      const fd = openSync(batch.paths[i], batch.flags, mode)
      try {
        // A write may take fewer bytes than asked (a full disk, before it fails).
        for (let at = start; at < end;) at += writeSync(fd, data, at, end - at)
        if (mode & (batch.umask | ~0o777)) fchmodSync(fd, mode)
        futimesSync(fd, batch.mtimes[i], batch.mtimes[i])
      } finally {
        closeSync(fd)
      }
    } catch (err) {
      const { message, code, errno, syscall } = err
      return { index: i, message, code, errno, syscall }
    }
    start = end
  }
  return undefined
}
