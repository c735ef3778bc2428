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
  return hold(openSync(join(dir, name), dirFlags), join(dir, name))
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

/** Moves the restored tree into the target: whole folders by one rename where the target has none; folders entered without following links. */
export async function moveInto(from: string, to: string): Promise<void> {
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const source = join(from, entry.name)
    const there = await lstat(join(to, entry.name)).catch(() => undefined)
    if (entry.isDirectory() && there?.isDirectory()) {
      const inner = holdChild(to, entry.name)
      try {
        await moveInto(source, inner.dir)
      } finally {
        inner.close()
      }
    } else await rename(source, join(to, entry.name))
  }
}
