/**
 * @module tasks/heldFolder
 * Folders held by a descriptor, `openat`-style: on Linux a folder already opened is reached again as
 * `/proc/self/fd/<fd>/<name>`, so a folder renamed, or swapped for a link to somewhere else, after it
 * was opened cannot redirect what is written into it (as `sources/local/localWalk` reads). Every component
 * below the starting folder is opened with `O_NOFOLLOW | O_DIRECTORY`: a link on the way is refused,
 * never followed. Where `/proc/self/fd` is missing, folders are reached by path (the checks still run,
 * the race window is back); the README says so.
 */
import { closeSync, constants, existsSync, fstatSync, openSync } from 'node:fs'
import { lstat, readdir, rename } from 'node:fs/promises'
import { join } from 'node:path'
import { decodeName, fsName } from '../tar/byteNames.js'

export const viaFd = existsSync('/proc/self/fd')
const dirFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW

export interface HeldFolder {
  /** The path that reaches the held folder itself (`/proc/self/fd/<fd>`, or its path without /proc). */
  dir: string
  /** Device and inode of the held folder, to compare with what its path leads to now. */
  dev: number
  ino: number
  close(): void
}

function hold(fd: number, fallback: string): HeldFolder {
  const info = fstatSync(fd)
  let open = true
  return {
    dir: viaFd ? `/proc/self/fd/${fd}` : fallback,
    dev: info.dev,
    ino: info.ino,
    close() {
      if (open) closeSync(fd)
      open = false
    },
  }
}

/**
 * Opens `start` (which may be a link itself: a configured root) and then each of `components` below it
 * without following links; returns the last one held. ELOOP/ENOTDIR mean a link or a file on the way.
 */
export function holdBelow(start: string, components: string[]): HeldFolder {
  let fd = openSync(start, constants.O_RDONLY | constants.O_DIRECTORY)
  let path = start
  try {
    for (const component of components) {
      const next = openSync(viaFd ? `/proc/self/fd/${fd}/${component}` : join(path, component), dirFlags)
      closeSync(fd)
      fd = next
      path = join(path, component)
    }
  } catch (err) {
    closeSync(fd)
    throw err
  }
  return hold(fd, path)
}

/** Opens `name` inside the held folder `dir` without following a link. */
export function holdChild(dir: string, name: string): HeldFolder {
  return hold(openSync(fsName(join(dir, name)), dirFlags), join(dir, name))
}

/** Whether `start` + `components` still lead (without links) to the held folder. */
export function stillLeadsTo(start: string, components: string[], held: HeldFolder): boolean {
  let now: HeldFolder | undefined
  try {
    now = holdBelow(start, components)
    return now.dev === held.dev && now.ino === held.ino
  } catch {
    return false
  } finally {
    now?.close()
  }
}

/** Entries of a folder: names decoded from their bytes (`tar/byteNames`), with their types. */
export async function listFolder(dir: string): Promise<{ name: string; isDirectory: boolean }[]> {
  const entries = await readdir(dir, { withFileTypes: true, encoding: 'buffer' })
  return entries.map((entry) => ({ name: decodeName(entry.name), isDirectory: entry.isDirectory() }))
}

/** A merge that stopped part-way: how many entries (files, links, whole folders) it had moved. */
export class MergeError extends Error {
  override name = 'MergeError'
  constructor(
    readonly moved: number,
    cause: Error,
  ) {
    super(cause.message, { cause })
  }
}

/**
 * Moves the restored tree into the target: whole folders by one rename where the target has none; folders
 * entered without following links. Resolves with the number of entries moved; a failure is a `MergeError`
 * saying how many were moved before it.
 */
export async function moveInto(from: string, to: string): Promise<number> {
  let moved = 0
  const walk = async (source: string, target: string) => {
    for (const entry of await listFolder(source)) {
      const there = await lstat(fsName(join(target, entry.name))).catch(() => undefined)
      if (entry.isDirectory && there?.isDirectory()) {
        const inner = holdChild(target, entry.name)
        try {
          await walk(join(source, entry.name), inner.dir)
        } finally {
          inner.close()
        }
      } else {
        await rename(fsName(join(source, entry.name)), fsName(join(target, entry.name)))
        moved++
      }
    }
  }
  try {
    await walk(from, to)
  } catch (err) {
    throw new MergeError(moved, err as Error)
  }
  return moved
}
