/**
 * @module tar/openInside
 * Reading a file that a snapshot's own data names (a `video.json`'s `archived.file` or caption, a
 * `library.json`'s folders): a snapshot is untrusted input, so such a path must pass the entry rules
 * (`entryPath`: relative, no `..`) and is opened from its folder one component at a time without
 * following a link (the restored tree may hold links the snapshot planted: `up -> /etc`). What is opened
 * must be a regular file. Nothing outside the folder is ever read because a snapshot said so.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs'
import { createReadStream, type ReadStream } from 'node:fs'
import { escapeName } from '../logs/escapeControl.js'
import { fsName } from './byteNames.js'
import { safeComponents, UnsafeEntryError } from './entryPath.js'

const folderFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW
const fileFlags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK

/** A file opened inside its folder: its descriptor (the caller closes it, or hands it to a stream) and size. */
export interface OpenedInside {
  fd: number
  size: number
}

/**
 * Opens `path` (from the snapshot; `what` names it in messages, e.g. `video abc: its file`) below `folder`;
 * throws `UnsafeEntryError` for a path that breaks the rules or goes through a link, or is not a file.
 */
export function openInside(folder: string, path: string, what: string): OpenedInside {
  if (typeof path !== 'string') throw new UnsafeEntryError(what, String(path), 'it is not a path')
  const components = safeComponents(path, what)
  // The folder itself is the restore's (a source's folder in the restored tree): a link there is not followed either.
  let fd = openSync(fsName(folder), folderFlags)
  try {
    for (const [i, component] of components.entries()) {
      const last = i === components.length - 1
      let next: number
      try {
        next = openSync(fsName(`/proc/self/fd/${fd}/${component}`), last ? fileFlags : folderFlags)
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code
        if (code === 'ELOOP' || code === 'ENOTDIR') {
          const shown = escapeName(components.slice(0, i + 1).join('/'))
          throw new UnsafeEntryError(what, path, `"${shown}" is ${last ? 'a link' : 'a link or not a folder'} (never followed)`)
        }
        if (code === 'ENOENT') throw new Error(`${what} "${escapeName(path)}" is not in the restored folder`, { cause: err })
        throw err
      }
      closeSync(fd)
      fd = next
    }
    const info = fstatSync(fd)
    if (!info.isFile()) throw new UnsafeEntryError(what, path, 'it is not a regular file')
    return { fd, size: info.size }
  } catch (err) {
    closeSync(fd)
    throw err
  }
}

/** The whole file `path` below `folder` (`openInside`'s rules). */
export function readInside(folder: string, path: string, what: string): Buffer {
  const { fd } = openInside(folder, path, what)
  try {
    return readFileSync(fd)
  } finally {
    closeSync(fd)
  }
}

/** The file `path` below `folder` as a stream (closing it closes the file), with its size. */
export function streamInside(folder: string, path: string, what: string): { stream: ReadStream; size: number } {
  const { fd, size } = openInside(folder, path, what)
  return { stream: createReadStream('', { fd }), size }
}
