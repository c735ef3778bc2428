/**
 * @module restore/extractTo
 * Unpacks a tar stream into a folder. Every entry must stay inside it: absolute names, `..` steps, hard
 * links, and entries reached through a symbolic link are refused (the restore stops with an error naming
 * the entry). Every folder on an entry's path is checked component by component before anything is
 * created: an existing link on the way (e.g. an archived `lnk -> /outside` or `up -> ..` followed by
 * `lnk/x/y`) is refused, so nothing is ever created outside the folder. Symbolic links themselves are
 * restored as they were archived (the `local` source stores links to anywhere without following them),
 * but nothing is ever written through one: an existing link at a file's path is replaced, never followed.
 * Existing files are not replaced unless `overwrite` is set. The snapshot's record (`tar/snapshotRecord.ts`)
 * is never written: it is handed to `onRecord` (a drill compares with it) or skipped.
 */
import { constants } from 'node:fs'
import { lstat, mkdir, open, realpath, rm, symlink, utimes } from 'node:fs/promises'
import { isAbsolute, join, resolve, sep } from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { escapeName } from '../logs/escapeControl.js'
import { forEachTarEntry } from '../archive/forEachTarEntry.js'
import { isRecordEntry, recordEntryName } from '../tar/snapshotRecord.js'

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

export interface ExtractResult {
  files: number
  directories: number
  links: number
  bytes: number
}

const inside = (root: string, path: string) => path === root || path.startsWith(root + sep)

class EscapeError extends Error {
  constructor(name: string, root: string, why: string) {
    super(`refusing archive entry "${escapeName(name)}": ${why} (it would escape ${root})`)
  }
}

export async function extractTo(archive: Readable, dir: string, options: ExtractOptions = {}): Promise<ExtractResult> {
  if (!options.held) await mkdir(dir, { recursive: true })
  const root = options.held ? dir : await realpath(dir)
  const result: ExtractResult = { files: 0, directories: 0, links: 0, bytes: 0 }

  const target = (name: string): string => {
    const clean = name.replace(/\/+$/, '')
    if (!clean || isAbsolute(clean) || clean.includes('\0') || clean.includes('\\') || clean.split('/').includes('..')) {
      throw new EscapeError(name, root, 'absolute or with ".."')
    }
    const path = resolve(root, clean)
    if (!inside(root, path)) throw new EscapeError(name, root, 'outside the folder')
    return path
  }
  /**
   * Makes the folders of `components` below the root one at a time, each checked with lstat first: a
   * link (or a file) on the way is refused before anything below it is created. `mkdir` with
   * `recursive` would follow links.
   */
  const ensureFolders = async (name: string, components: string[], mode?: number) => {
    let path = root
    for (const [i, component] of components.entries()) {
      path = join(path, component)
      const existing = await lstat(path).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return undefined
        throw err
      })
      if (existing?.isSymbolicLink()) throw new EscapeError(name, root, `"${escapeName(components.slice(0, i + 1).join('/'))}" on its path is a link`)
      if (existing && !existing.isDirectory())
        throw new Error(`refusing archive entry "${escapeName(name)}": "${escapeName(components.slice(0, i + 1).join('/'))}" on its path is not a folder`)
      if (!existing) await mkdir(path, i === components.length - 1 && mode !== undefined ? { mode } : {})
    }
  }
  const parts = (name: string) =>
    name
      .replace(/\/+$/, '')
      .split('/')
      .filter((p) => p !== '' && p !== '.')

  /** With `overwrite`, a link (or file) in the way is removed first, so the write cannot follow it. */
  const clear = async (path: string) => {
    const existing = await lstat(path).catch(() => undefined)
    if (existing && options.overwrite && !existing.isDirectory()) await rm(path, { force: true })
  }

  await forEachTarEntry(archive, async (header, stream) => {
    if (header.type === 'directory' && /^(\.\/?)+$/.test(header.name)) return // `tar -C dir .` names the root itself `./`
    if (isRecordEntry(header.name)) {
      const chunks: Buffer[] = []
      for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk)
      if (header.name.replace(/^(\.\/)+/, '') === recordEntryName) options.onRecord?.(Buffer.concat(chunks))
      return
    }
    const path = target(header.name)
    options.onEntry?.(header.name)
    const mtime = header.mtime ?? new Date()
    const components = parts(header.name)
    if (header.type === 'directory') {
      await ensureFolders(header.name, components, (header.mode ?? 0o755) & 0o777)
      result.directories++
    } else if (header.type === 'file' || header.type === 'contiguous-file') {
      await ensureFolders(header.name, components.slice(0, -1))
      await clear(path)
      // O_NOFOLLOW: a link that appeared at the path since `clear` is not written through.
      const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | (options.overwrite ? constants.O_TRUNC : constants.O_EXCL)
      const out = (await open(path, flags, (header.mode ?? 0o644) & 0o777)).createWriteStream()
      await pipeline(stream, out, options.signal ? { signal: options.signal } : {})
      await utimes(path, mtime, mtime)
      result.files++
      result.bytes += header.size ?? 0
    } else if (header.type === 'symlink') {
      const link = header.linkname ?? ''
      await ensureFolders(header.name, components.slice(0, -1))
      await clear(path)
      await symlink(link, path)
      result.links++
    } else {
      throw new EscapeError(header.name, root, `entries of type ${header.type} are not restored`)
    }
  })
  return result
}
