/**
 * @module restore/extractTo
 * Unpacks a tar stream into a folder. A snapshot is untrusted input: every entry must stay inside the
 * folder. Refused, with a message naming the entry and the rule (never an internal path), are only the
 * entries that truly escape: an absolute name, a `..` step or a NUL (`entryPath`), an entry reached
 * through a symbolic link (an archived `lnk -> /outside` or `up -> ..` followed by `lnk/x/y`), and a hard
 * link whose target breaks the same rules. Every folder on an entry's path is checked component by
 * component before anything is created, so nothing is ever created outside the folder. Any other name a
 * Linux file system allows restores byte-exact (`tar/byteNames`: backslashes, newlines, bytes that are not
 * UTF-8). Symbolic links are restored as they were archived (the `local` source stores links to anywhere
 * without following them), but nothing is ever written through one: an existing link at a file's path is
 * replaced, never followed.
 *
 * Modes and times are restored as archived: files get their permission bits (umask not applied) and
 * mtime when written, links their mtime, folders their mode and mtime once everything below them is in
 * place (a folder's mtime changes as entries go into it; a read-only folder must stay writable until
 * then). Set-user-ID and set-group-ID bits are not restored (a snapshot is untrusted input: a restore run
 * as root must not make set-uid programs out of it); `result.setIdCleared` counts them. Entries of other
 * types (devices, FIFOs) are skipped and listed in `result.skipped`.
 *
 * Existing files are not replaced unless `overwrite` is set. The snapshot's record (`tar/snapshotRecord.ts`)
 * is never written: it is handed to `onRecord` (a drill compares with it) or skipped.
 */
import { closeSync, constants, createWriteStream, fchmodSync, futimesSync, open as openCallback, openSync, write, writeSync, writev } from 'node:fs'
import { link, lstat, lutimes, mkdir, realpath, rm, symlink } from 'node:fs/promises'
import { promisify } from 'node:util'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { escapeName } from '../logs/escapeControl.js'
import { fsName } from '../tar/byteNames.js'
import { forEachTarEntry } from '../tar/forEachTarEntry.js'
import { isRecordEntry, recordEntryName } from '../tar/snapshotRecord.js'
import { safeComponents, UnsafeEntryError } from '../tar/entryPath.js'
import { smallFileWriter } from './smallFileWriter.js'

export interface ExtractOptions {
  /** Replace files that exist. @default false */
  overwrite?: boolean
  signal?: AbortSignal
  /** Told each entry's name before it is written (progress). */
  onEntry?: (name: string) => void
  /**
   * `dir` is a held folder's descriptor path (`/proc/self/fd/<fd>`): used as it is, not resolved to a
   * path that a swap could redirect. @default false
   */
  held?: boolean
  /** Given the snapshot record's bytes (read into memory instead of written). */
  onRecord?: (bytes: Buffer) => void
}

/** A folder of the snapshot: its path below the target and what is restored on it last. */
export interface RestoredFolder {
  components: string[]
  mode: number
  mtime: Date
}

export interface ExtractResult {
  files: number
  directories: number
  links: number
  bytes: number
  /** Entries not restored (devices, FIFOs), each named with its type. */
  skipped: string[]
  /** Entries whose set-user-ID or set-group-ID bit was not restored. */
  setIdCleared: number
  /** Every folder entry, for whoever moves the tree elsewhere and must put their times back (`restoreFiles`). */
  folders: RestoredFolder[]
}

/** Permission bits restored: everything but set-user-ID and set-group-ID. */
const keptModeBits = 0o1777
const setIdBits = 0o6000

const openFile = promisify(openCallback)

/**
 * The file system calls of a write stream on a descriptor that stays ours: a stream destroyed by an error (a
 * full disk's ENOSPC) closes its descriptor even with `autoClose: false`, and our own close of it then failed
 * with EBADF in place of the cause (or could close a descriptor reused meanwhile).
 */
const keepOpen = { open: openCallback, write, writev, close: (_fd: number, callback: (err: null) => void) => callback(null) }

/** Files up to this size are read into memory and written with one call (`writeAllSync`). */
const SMALL_FILE = 256 * 1024

/** Writes all of `body` (a write may take fewer bytes than asked, on a full disk before it fails). */
function writeAllSync(fd: number, body: Buffer): void {
  for (let at = 0; at < body.length;) at += writeSync(fd, body, at, body.length - at)
}

const lstatOrNone = (path: string) =>
  lstat(fsName(path)).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined
    throw err
  })

export async function extractTo(archive: Readable, dir: string, options: ExtractOptions = {}): Promise<ExtractResult> {
  if (!options.held) await mkdir(dir, { recursive: true })
  const root = options.held ? dir : await realpath(dir)
  const result: ExtractResult = { files: 0, directories: 0, links: 0, bytes: 0, skipped: [], setIdCleared: 0, folders: [] }
  /** Folders below the root known to be real folders (made here, or checked): the target is this restore's own. */
  const known = new Set<string>()

  // Small new files are written on a worker thread while this one reads on (restore/smallFileWriter). Not
  // with `overwrite`: each file then clears its path first, in order.
  const fileFlags = constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | (options.overwrite ? constants.O_TRUNC : constants.O_EXCL)
  const writer = options.overwrite ? undefined : smallFileWriter(fileFlags)

  const refuse = (name: string, why: string) => new UnsafeEntryError('archive entry', name, why)
  /**
   * Makes the folders of `components` below the root one at a time, each checked with lstat first: a
   * link (or a file) on the way is refused before anything below it is created. `mkdir` with
   * `recursive` would follow links.
   */
  const ensureFolders = async (name: string, components: string[]) => {
    let path = root
    for (const [i, component] of components.entries()) {
      path = join(path, component)
      if (known.has(path)) continue
      let existing = await lstatOrNone(path)
      if (!existing && writer?.holds(path)) {
        // A file queued at this path may not be on disk yet: it lands first, and is refused below as it was before.
        await writer.settled()
        existing = await lstatOrNone(path)
      }
      const shown = () => escapeName(components.slice(0, i + 1).join('/'))
      if (existing?.isSymbolicLink()) throw refuse(name, `its path goes through "${shown()}", a symbolic link`)
      if (existing && !existing.isDirectory()) throw refuse(name, `"${shown()}" on its path is not a folder`)
      // Owner-writable until its own mode is restored at the end.
      if (!existing) await mkdir(fsName(path), { mode: 0o700 })
      known.add(path)
    }
    return path
  }

  /** With `overwrite`, a link (or file) in the way is removed first, so the write cannot follow it. */
  const clear = async (path: string) => {
    const existing = await lstatOrNone(path)
    if (existing && options.overwrite && !existing.isDirectory()) await rm(fsName(path), { force: true })
  }
  const modeOf = (mode: number) => {
    if (mode & setIdBits) result.setIdCleared++
    return mode & keptModeBits
  }

  try {
    await unpack()
    await writer?.settled()
  } finally {
    await writer?.close()
  }
  // Last: a folder's mtime changes as entries go into it.
  await restoreFolders(root, result.folders)
  return result

  async function unpack() {
    await forEachTarEntry(archive, async (header, stream, whole) => {
      if (header.type === 'directory' && /^(\.\/?)+$/.test(header.name)) return // `tar -C dir .` names the root itself `./`
      if (isRecordEntry(header.name)) {
        const chunks: Buffer[] = []
        for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk)
        if (header.name.replace(/^(\.\/)+/, '') === recordEntryName) options.onRecord?.(Buffer.concat(chunks))
        return
      }
      const components = safeComponents(header.name, 'archive entry')
      options.onEntry?.(header.name)
      const mtime = header.mtime
      if (header.type === 'directory') {
        await ensureFolders(header.name, components)
        result.folders.push({ components, mode: modeOf(header.mode), mtime })
        result.directories++
      } else if (header.type === 'file' || header.type === 'contiguous-file') {
        const path = join(await ensureFolders(header.name, components.slice(0, -1)), components.at(-1)!)
        // Without `overwrite` there is nothing to clear: O_EXCL refuses whatever is at the path, a link included.
        if (options.overwrite) await clear(path)
        const mode = modeOf(header.mode)
        // A small file is read whole and written with one call: a million of them cost their system calls, not
        // a write stream each. A plain descriptor either way (O_NOFOLLOW: a link that appeared at the path since
        // `clear` is not written through): mode and times are set on what was written, after its last byte.
        options.signal?.throwIfAborted()
        const body = header.size <= SMALL_FILE ? await whole() : undefined
        if (body && writer) {
          await writer.write({ name: path, path: fsName(path), mode, mtime, body })
          result.files++
          result.bytes += header.size
          return
        }
        const fd = body ? openSync(fsName(path), fileFlags, 0o600) : await openFile(fsName(path), fileFlags, 0o600)
        try {
          if (body) writeAllSync(fd, body)
          else await pipeline(stream, createWriteStream('', { fd, autoClose: false, fs: keepOpen }), options.signal ? { signal: options.signal } : {})
          fchmodSync(fd, mode)
          futimesSync(fd, mtime, mtime)
        } finally {
          closeSync(fd)
        }
        result.files++
        result.bytes += header.size
      } else if (header.type === 'symlink') {
        // Made in order: every file queued before it is on disk first (a path it could clash with or lead through).
        await writer?.settled()
        const path = join(await ensureFolders(header.name, components.slice(0, -1)), components.at(-1)!)
        await clear(path)
        await symlink(fsName(header.linkname ?? ''), fsName(path))
        await lutimes(fsName(path), mtime, mtime)
        result.links++
      } else if (header.type === 'link') {
        // A hard link to an entry restored before it: its target obeys the entry rules, and is reached without links.
        const target = safeComponents(header.linkname ?? '', `archive entry "${escapeName(header.name)}": its hard link target`)
        await writer?.settled()
        const from = join(await ensureFolders(header.name, target.slice(0, -1)), target.at(-1)!)
        const there = await lstatOrNone(from)
        if (!there?.isFile()) throw refuse(header.name, `its hard link target "${escapeName(header.linkname ?? '')}" is not a file restored before it`)
        const path = join(await ensureFolders(header.name, components.slice(0, -1)), components.at(-1)!)
        await clear(path)
        await link(fsName(from), fsName(path))
        result.files++
      } else {
        result.skipped.push(`${escapeName(header.name)} (${header.type})`)
      }
    })
  }
}

/**
 * Each folder's mode and mtime, deepest first (a chmod or utimes does not change the folder above). Each
 * folder is opened from `root` one component at a time without following links and changed through its
 * descriptor: in a target others can write to, a folder swapped for a link meanwhile is never followed.
 */
export async function restoreFolders(root: string, folders: readonly RestoredFolder[]): Promise<void> {
  const deepestFirst = [...folders].sort((a, b) => b.components.length - a.components.length)
  for (const folder of deepestFirst) {
    const fd = openFolderBelow(root, folder.components)
    if (fd === undefined) continue
    try {
      fchmodSync(fd, folder.mode)
      futimesSync(fd, folder.mtime, folder.mtime)
    } finally {
      closeSync(fd)
    }
  }
}

const folderFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW

/** `root/components…` opened without following a link on the way; undefined when it is not (or no longer) a folder there. */
function openFolderBelow(root: string, components: readonly string[]): number | undefined {
  let fd = openSync(root, constants.O_RDONLY | constants.O_DIRECTORY)
  try {
    for (const component of components) {
      const next = openSync(fsName(`/proc/self/fd/${fd}/${component}`), folderFlags)
      closeSync(fd)
      fd = next
    }
    return fd
  } catch (err) {
    closeSync(fd)
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ELOOP' || code === 'ENOTDIR') return undefined
    throw err
  }
}
