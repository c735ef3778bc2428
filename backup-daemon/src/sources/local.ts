/**
 * @module sources/local
 * The `local` source: a folder, walked depth first in name order, minus the `exclude` globs
 * (picomatch, relative to the folder; a matching folder is skipped whole). Symbolic links are stored
 * as links and never followed, so nothing outside the folder is read. Entries are named
 * `<source name>/<relative path>` in the archive.
 */
import {
  closeSync,
  constants,
  createReadStream,
  existsSync,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  type Dirent,
  type Stats,
} from 'node:fs'
import { stat } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { Readable } from 'node:stream'
import { z } from 'zod'
import { excludeMatcher } from './support/excludeMatcher.js'
import { sourceName } from './support/sourceName.js'
import type { Source, SourceContext, SourceEntry, SourceFactory } from './types.js'

/** Files up to this size are read whole during the walk (`data`) rather than streamed. */
const smallFile = 256 * 1024
/** A batch ends after this many entries or bytes of small files: the event loop gets a turn between batches. */
const batchEntries = 64
const batchBytes = 256 * 1024
/**
 * Small files of a batch are read into one buffer reused from batch to batch (`data` is a view of it): a
 * buffer per file came from Node's 8 KiB pool, a new ArrayBuffer every few files, and on 200k tiny files
 * that churn made a fifth of the run garbage collection (measured). Room for a batch's bytes, its last
 * file (at most `smallFile + 1` bytes read) and the one byte read past the size of every other file.
 */
const arenaSize = batchBytes + smallFile + 1 + batchEntries
/** Large files are streamed in reads of this size (1 MiB ones raised peak RSS by ~15 MiB, measured). */
const streamChunk = 256 * 1024

/**
 * On Linux a folder already opened is reached again as `/proc/self/fd/<fd>/<name>` (what `openat` does):
 * a folder renamed, or swapped for a link to somewhere else, after it was opened cannot redirect the
 * reads of its entries. Elsewhere entries are reached by path; the checks below still apply.
 */
const viaFd = existsSync('/proc/self/fd')
const dirFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW
// O_NONBLOCK: a file swapped for a FIFO after it was listed must not block the open.
const fileFlags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK

/** Errors of an open that mean "this is no longer what the walk saw" (a link now, a file now). */
const changedCodes = new Set(['ELOOP', 'ENOTDIR', 'EISDIR', 'ENXIO', 'EMLINK'])

const byName = (a: Dirent, b: Dirent) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

/** A folder being walked: its descriptor and its entries in name order. */
interface Folder {
  fd: number
  relativeDir: string
  /** Where its entries are reached (`/proc/self/fd/<fd>` or the path). */
  base: string
  entries: Dirent[]
  next: number
}

/**
 * The modification time cut to the whole millisecond. Node's `Stats` dates round `mtimeMs` (which keeps the
 * nanoseconds as a fraction), so a file changed at x.9996 s would otherwise be archived at x+1 s: tar stores
 * whole seconds, and what it stores must be the second the file system holds, as GNU tar stores it.
 */
const mtimeOf = (info: Stats) => new Date(Math.floor(info.mtimeMs))

/**
 * The walk is synchronous within a batch (measured: five thread-pool round trips per small file, each a
 * promise, cost ~30x what `tar` spends per file). Per file it makes fewer calls than `tar`: the type comes
 * from the folder listing (no `lstat`), then `open` (no link followed), `fstat` on the descriptor (size,
 * mode, mtime, and proof that what is read is a regular file), `read`, `close`. A batch is bounded
 * (`batchEntries`, `batchBytes`), so the event loop is held for a few milliseconds at most; the abort
 * signal is checked before every entry.
 */
export class LocalSource implements Source {
  readonly type = 'local'
  private readonly root: string
  /** Undefined without exclude patterns (one call less per entry). */
  private readonly excluded: ((path: string) => boolean) | undefined

  constructor(
    readonly name: string,
    root: string,
    exclude: string[],
    private readonly context: SourceContext,
  ) {
    this.root = resolve(root)
    this.excluded = exclude.length > 0 ? excludeMatcher(exclude) : undefined
  }

  /**
   * The entries one at a time, for consumers that take bytes through `read`/`open` (zip, remote mirrors):
   * small files' bytes are served from a copy of what the walk read (still of the length read: the consumer
   * cuts or pads them to `size`). A copy, because such a consumer may still hold an entry when the walk
   * reads the next batch into the same buffer.
   */
  async *entries(signal: AbortSignal): AsyncIterable<SourceEntry> {
    for await (const batch of this.entryBatches(signal)) {
      for (const entry of batch) {
        if (!entry.data) {
          yield entry
          continue
        }
        const data = Buffer.from(entry.data)
        yield { ...entry, data: undefined, read: async () => data, open: () => Readable.from([data]) }
      }
    }
  }

  async *entryBatches(signal: AbortSignal): AsyncIterable<SourceEntry[]> {
    // The configured folder itself may be a link (e.g. /srv/current); nothing below it is followed.
    const top = await stat(this.root)
    if (!top.isDirectory()) throw new Error(`source "${this.name}": ${this.root} is not a directory`)
    const folders: Folder[] = []
    const arena = Buffer.allocUnsafe(arenaSize)
    let used = 0
    try {
      folders.push(this.folder('', openSync(this.root, constants.O_RDONLY | constants.O_DIRECTORY)))
      let batch: SourceEntry[] = [{ name: this.name, type: 'directory', mode: top.mode & 0o7777, mtime: mtimeOf(top) }]
      let bytes = 0
      while (folders.length > 0) {
        signal.throwIfAborted()
        const folder = folders[folders.length - 1]!
        if (folder.next === folder.entries.length) {
          closeSync(folder.fd)
          folders.pop()
          continue
        }
        const dirent = folder.entries[folder.next++]!
        const entryName = dirent.name
        const relativePath = folder.relativeDir ? `${folder.relativeDir}/${entryName}` : entryName
        if (this.excluded?.(relativePath)) continue
        const path = `${folder.base}/${entryName}`
        const name = `${this.name}/${relativePath}`
        // The type comes from the listing (no lstat); what is opened is then checked with fstat on its descriptor.
        const isDirectory = dirent.isDirectory()
        if (dirent.isFile() || isDirectory) {
          // Opened without following a link (a folder or file replaced by a link since the listing is
          // skipped), and fstat must agree with the listing (a folder for a folder, a regular file for a
          // file: a FIFO or device swapped in is skipped too): what is read is what the header describes.
          const fd = this.openEntry(path, isDirectory ? dirFlags : fileFlags, relativePath)
          if (fd === undefined) continue
          let handedOut = false
          try {
            const info = fstatSync(fd)
            if (isDirectory ? !info.isDirectory() : !info.isFile()) {
              this.changed(relativePath)
              continue
            }
            const mode = info.mode & 0o7777
            const mtime = mtimeOf(info)
            if (info.isDirectory()) {
              batch.push({ name, type: 'directory', mode, mtime })
              // The folder's descriptor is closed when its walk ends (or by `folder` when it cannot be listed).
              handedOut = true
              folders.push(this.folder(relativePath, fd))
            } else if (info.size <= smallFile) {
              const data = readWhole(fd, arena, used, info.size)
              used += data.length
              batch.push({ name, type: 'file', mode, mtime, size: info.size, data })
              bytes += info.size
            } else {
              // Streamed: the batch ends here, and the descriptor is the stream's (closed when it ends or fails).
              let claimed = false
              batch.push({
                name,
                type: 'file',
                mode,
                mtime,
                size: info.size,
                open: (s) => {
                  if (claimed) throw new Error(`source "${this.name}": ${relativePath} read twice`)
                  claimed = true
                  return createReadStream('', { fd, signal: s, highWaterMark: streamChunk })
                },
              })
              const full = batch
              batch = []
              bytes = 0
              used = 0
              handedOut = true
              try {
                yield full
              } finally {
                // A file the archive writer never opened (the walk moved on, or stopped).
                if (!claimed) closeSync(fd)
              }
              continue
            }
          } finally {
            if (!handedOut) closeSync(fd)
          }
        } else if (dirent.isSymbolicLink()) {
          const link = this.readLink(path, relativePath)
          if (link) batch.push({ name, type: 'symlink', mode: link.mode, mtime: link.mtime, linkname: link.target })
        } else {
          this.context.log('warn', `source "${this.name}": skipped ${relativePath} (not a file, folder or link)`)
        }
        if (batch.length >= batchEntries || bytes >= batchBytes) {
          const full = batch
          batch = []
          bytes = 0
          used = 0
          yield full
        }
      }
      if (batch.length > 0) yield batch
    } finally {
      for (const folder of folders) closeSync(folder.fd)
    }
  }

  /** A folder opened as `fd`: its entries (names and types), sorted by name. */
  private folder(relativeDir: string, fd: number): Folder {
    const base = viaFd ? `/proc/self/fd/${fd}` : join(this.root, relativeDir)
    let entries: Dirent[]
    try {
      entries = readdirSync(base, { withFileTypes: true })
    } catch (err) {
      closeSync(fd)
      throw err
    }
    // Name order makes archives of an unchanged tree identical from run to run.
    entries.sort(byName)
    return { fd, relativeDir, base, entries, next: 0 }
  }

  private changed(relativePath: string): void {
    this.context.log('warn', `source "${this.name}": skipped ${relativePath}: it changed while the backup read it (replaced by a link or another file)`)
  }

  /** Opens `path` with `flags`; undefined (after a warning when it changed, silently when it is gone) when it cannot be. */
  private openEntry(path: string, flags: number, relativePath: string): number | undefined {
    try {
      return openSync(path, flags)
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? ''
      if (code === 'ENOENT') return undefined
      if (changedCodes.has(code)) {
        this.changed(relativePath)
        return undefined
      }
      throw err
    }
  }

  /** A link's target, stored as is and never followed; undefined when it is gone or no longer a link. */
  private readLink(path: string, relativePath: string): { mode: number; mtime: Date; target: string } | undefined {
    try {
      const info = lstatSync(path)
      if (!info.isSymbolicLink()) {
        this.changed(relativePath)
        return undefined
      }
      return { mode: info.mode & 0o7777, mtime: mtimeOf(info), target: readlinkSync(path) }
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code
      if (code === 'ENOENT' || code === 'EINVAL') return undefined
      throw err
    }
  }
}

/**
 * Up to `size + 1` bytes of `fd`, read into `arena` at `at` (a view of them is returned): a file that shrank
 * since its fstat comes back shorter, one that grew one byte longer (enough for the archive writer to see it
 * changed and cut it).
 */
function readWhole(fd: number, arena: Buffer, at: number, size: number): Buffer {
  const end = at + size + 1
  let filled = at
  while (filled < end) {
    const n = readSync(fd, arena, filled, end - filled, null)
    if (n === 0) break
    filled += n
  }
  return arena.subarray(at, filled)
}

const localSourceSchema = z.strictObject({
  type: z.literal('local'),
  name: sourceName,
  /** The folder backed up (its contents go under `<name>/` in the archive). */
  path: z.string().min(1),
  /** Exclude patterns (`sources/support/excludeMatcher.ts`): globs on the relative path or the name, `dir/`, bare names. YAML also `excludes`. */
  exclude: z.array(z.string()).optional(),
})

/** One `type: local` source entry after parsing. */
export type LocalSourceConfig = z.output<typeof localSourceSchema>

export const localSource: SourceFactory<LocalSourceConfig> = {
  type: 'local',
  configSchema: localSourceSchema,
  secretKeys: [],
  pathKeys: ['path'],
  create: (config, context) => new LocalSource(config.name, config.path, config.exclude ?? [], context),
}
