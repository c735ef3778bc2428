/**
 * @module sources/local/localWalk
 * The local source's walk as a synchronous generator, shared by the in-thread path (`sources/local/index.ts`,
 * `batches`) and the tar worker (`sources/local/tarWorker/treeTar.ts`): depth first in name order, minus
 * the excluded paths, links stored and never followed. Per file: the type comes from the folder listing
 * (no `lstat`), then `open` (no link followed), `fstat` on the descriptor (size, mode, mtime, and proof
 * that what is read is a regular file), `read`, `close`.
 */
import { escapeName } from '../../logs/escapeControl.js'
import { decodeName, fsName } from '../../tar/byteNames.js'
import { closeSync, constants, existsSync, fstatSync, lstatSync, openSync, readdirSync, readlinkSync, readSync, type Dirent, type Stats } from 'node:fs'
import { stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { SourceContext, SourceEntry } from '../types.js'

/** Files up to this size are read whole during the walk (`data`) rather than streamed. */
export const smallFile = 256 * 1024

/**
 * Files under this size are read into one buffer per walk, used as a ring (`data` is a view of it): a
 * buffer per file came from Node's 8 KiB pool, a new ArrayBuffer every few files, and on 200k tiny files
 * that churn made a fifth of the run garbage collection (measured: 1.1 s of GC in a profile, 0.74 s with
 * the ring). Below the tar writer's pass-through size (64 KiB, `tar/tarWriter.ts`), so the writer
 * always copies these bytes into its own chunks and never hands a view of the ring downstream.
 */
const ringFile = 32 * 1024
/**
 * A view stays valid until this many more bytes of ring files were read, less a file's worth: more than a
 * batch holds (`LocalSource.batches`: 64 entries or 256 KiB, plus its last file) and far more than a
 * step of the tar builder (`TreeTar`), which copies each file as it comes. A consumer keeping `data`
 * longer copies it (the zip writer, `archive/createZip.ts`).
 */
const ringSize = 1024 * 1024

/**
 * The modification time cut to the whole millisecond. Node's `Stats` dates round `mtimeMs` (which keeps the
 * nanoseconds as a fraction), so a file changed at x.9996 s would otherwise be archived at x+1 s: tar stores
 * whole seconds, and what it stores must be the second the file system holds, as GNU tar stores it.
 */
export const mtimeOf = (info: Stats) => new Date(Math.floor(info.mtimeMs))

/**
 * The walk's top entry, from the configured folder (which may itself be a link, e.g. /srv/current: nothing
 * below it is followed); an error when it is not a folder.
 */
export async function topOf(root: string, sourceName: string): Promise<WalkOptions['top']> {
  const info = await stat(root)
  if (!info.isDirectory()) throw new Error(`source "${sourceName}": ${root} is not a directory`)
  return { mode: info.mode, mtime: mtimeOf(info) }
}

/**
 * On Linux a folder already opened is reached again as `/proc/self/fd/<fd>/<name>` (what `openat` does):
 * a folder renamed, or swapped for a link to somewhere else, after it was opened cannot redirect the
 * reads of its entries. Elsewhere entries are reached by path; the checks below still apply.
 */
export const viaFd = existsSync('/proc/self/fd')
const dirFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW
// O_NONBLOCK: a file swapped for a FIFO after it was listed must not block the open.
const fileFlags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK

/** Errors of an open that mean "this is no longer what the walk saw" (a link now, a file now). */
const changedCodes = new Set(['ELOOP', 'ENOTDIR', 'EISDIR', 'ENXIO', 'EMLINK'])

const byName = (a: Listed, b: Listed) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

export interface WalkOptions {
  /** The folder walked (resolved; already checked to be a folder, links allowed for it alone). */
  root: string
  /** The source's name: entries are `<name>/<relative path>`. */
  name: string
  /** The top folder's own entry (from the caller's `stat` of the root). */
  top: { mode: number; mtime: Date }
  excluded?: (relativePath: string) => boolean
  log: SourceContext['log']
  /** Called before every entry; throws to stop the walk (an abort). */
  check?(): void
}

/** A walked entry; a large file comes with its open descriptor, which the consumer then owns (and closes). */
export type Walked = { entry: SourceEntry; fd?: undefined } | { entry: SourceEntry & { size: number }; fd: number }

/** A folder's entry: its name decoded from its bytes (`byteNames`: a name that is not UTF-8 stays exact) and its type. */
interface Listed {
  name: string
  dirent: Dirent<Buffer>
}

/** A folder being walked: its descriptor and its entries in name order. */
interface Folder {
  fd: number
  relativeDir: string
  /** Where its entries are reached (`/proc/self/fd/<fd>` or the path). */
  base: string
  entries: Listed[]
  next: number
}

/**
 * The entries in archive order: folders, links and small files (with their `data`) whole, large files
 * with their descriptor. Every folder descriptor is closed when the walk ends, fails or is returned early.
 */
export function* walkTree(options: WalkOptions): Generator<Walked, void, void> {
  const { root, name: sourceName, excluded, log, check } = options
  const changed = (relativePath: string) =>
    log('warn', `source "${sourceName}": skipped ${escapeName(relativePath)}: it changed while the backup read it (replaced by a link or another file)`)
  const folders: Folder[] = []
  const ring = { buffer: Buffer.allocUnsafe(ringSize), used: 0 }
  try {
    folders.push(openFolder(root, '', openSync(root, constants.O_RDONLY | constants.O_DIRECTORY)))
    yield { entry: { name: sourceName, type: 'directory', mode: options.top.mode & 0o7777, mtime: options.top.mtime } }
    while (folders.length > 0) {
      check?.()
      const folder = folders[folders.length - 1]!
      if (folder.next === folder.entries.length) {
        closeSync(folder.fd)
        folders.pop()
        continue
      }
      const { name: entryName, dirent } = folder.entries[folder.next++]!
      const relativePath = folder.relativeDir ? `${folder.relativeDir}/${entryName}` : entryName
      if (excluded?.(relativePath)) continue
      const path = `${folder.base}/${entryName}`
      const name = `${sourceName}/${relativePath}`
      const isDirectory = dirent.isDirectory()
      if (dirent.isFile() || isDirectory) {
        // Opened without following a link (a folder or file replaced by a link since the listing is
        // skipped), and fstat must agree with the listing (a folder for a folder, a regular file for a
        // file: a FIFO or device swapped in is skipped too): what is read is what the header describes.
        const fd = openEntry(path, isDirectory ? dirFlags : fileFlags, relativePath, changed)
        if (fd === undefined) continue
        let handedOut = false
        try {
          const info = fstatSync(fd)
          if (isDirectory ? !info.isDirectory() : !info.isFile()) {
            changed(relativePath)
            continue
          }
          const mode = info.mode & 0o7777
          const mtime = mtimeOf(info)
          if (isDirectory) {
            // The folder's descriptor is closed when its walk ends (or by `openFolder` when it cannot be listed).
            handedOut = true
            folders.push(openFolder(root, relativePath, fd))
            yield { entry: { name, type: 'directory', mode, mtime } }
          } else if (info.size <= smallFile) {
            yield { entry: { name, type: 'file', mode, mtime, size: info.size, data: readWhole(fd, info.size, ring) } }
          } else {
            handedOut = true
            yield { entry: { name, type: 'file', mode, mtime, size: info.size }, fd }
          }
        } finally {
          if (!handedOut) closeSync(fd)
        }
      } else if (dirent.isSymbolicLink()) {
        const link = readLink(path, relativePath, changed)
        if (link) yield { entry: { name, type: 'symlink', mode: link.mode, mtime: link.mtime, linkname: link.target } }
      } else {
        log('warn', `source "${sourceName}": skipped ${escapeName(relativePath)} (not a file, folder or link)`)
      }
    }
  } finally {
    for (const folder of folders) closeSync(folder.fd)
  }
}

/** A folder opened as `fd`: its entries (names and types), sorted by name. */
function openFolder(root: string, relativeDir: string, fd: number): Folder {
  const base = viaFd ? `/proc/self/fd/${fd}` : join(root, relativeDir)
  let entries: Listed[]
  try {
    entries = readdirSync(base, { withFileTypes: true, encoding: 'buffer' }).map((dirent) => ({ name: decodeName(dirent.name), dirent }))
  } catch (err) {
    closeSync(fd)
    throw err
  }
  // Name order makes archives of an unchanged tree identical from run to run.
  entries.sort(byName)
  return { fd, relativeDir, base, entries, next: 0 }
}

/** Opens `path` with `flags`; undefined (after a warning when it changed, silently when it is gone) when it cannot be. */
function openEntry(path: string, flags: number, relativePath: string, changed: (relativePath: string) => void): number | undefined {
  try {
    return openSync(fsName(path), flags)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? ''
    if (code === 'ENOENT') return undefined
    if (changedCodes.has(code)) {
      changed(relativePath)
      return undefined
    }
    throw err
  }
}

/** A link's target, stored as is and never followed; undefined when it is gone or no longer a link. */
function readLink(path: string, relativePath: string, changed: (relativePath: string) => void): { mode: number; mtime: Date; target: string } | undefined {
  try {
    const info = lstatSync(fsName(path))
    if (!info.isSymbolicLink()) {
      changed(relativePath)
      return undefined
    }
    return { mode: info.mode & 0o7777, mtime: mtimeOf(info), target: decodeName(readlinkSync(fsName(path), { encoding: 'buffer' })) }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'EINVAL') return undefined
    throw err
  }
}

const empty = Buffer.alloc(0)

/**
 * Up to `size + 1` bytes of `fd`: a file that shrank since its fstat comes back shorter, one that grew
 * one byte longer (enough for the archive writer to see it changed and cut it). One read per file: a
 * regular file's read is short only at its end, so a short read of all `size` bytes needs no second read
 * to see the end (measured: a sixth of the walk's time on tiny files went to that second read). An empty
 * file is not read at all (one that grew since its fstat is archived empty, as one that grew a moment
 * after its read would be). Files under `ringFile` bytes are read into the walk's ring.
 */
function readWhole(fd: number, size: number, ring: { buffer: Buffer; used: number }): Buffer {
  if (size === 0) return empty
  let buffer: Buffer
  let start = 0
  if (size < ringFile) {
    if (ring.used + size + 1 > ringSize) ring.used = 0
    buffer = ring.buffer
    start = ring.used
  } else {
    buffer = Buffer.allocUnsafe(size + 1)
  }
  const end = start + size + 1
  let filled = start
  while (filled < end) {
    const n = readSync(fd, buffer, filled, end - filled, null)
    if (n === 0) break
    filled += n
    if (filled - start === size) break
  }
  if (buffer === ring.buffer) ring.used = filled
  return start === 0 && filled === buffer.length ? buffer : buffer.subarray(start, filled)
}
