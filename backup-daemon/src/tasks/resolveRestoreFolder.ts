/**
 * @module tasks/resolveRestoreFolder
 * Checks a restore folder asked for by a client against `restore.roots` before anything is written:
 * the path must be absolute, without `.`/`..` steps (refused before any resolving), strictly below a
 * root, its parent folder must exist, and an existing target must be a folder. The existing part of the
 * path is resolved with realpath (so a link inside a root pointing outside is caught), then compared with
 * each root's realpath component by component (`/srv/restore2` is not below `/srv/restore`).
 *
 * The check is then made to last: the parent folder is opened from the root one component at a time
 * without following links (`tasks/heldFolder`) and held by that descriptor until the last write. A folder
 * inside a root swapped for a link after the check (the 202) cannot redirect the restore outside; the
 * restore checks before its final move that the path still leads to the held folder, and fails if not.
 */
import { lstat, mkdir, realpath } from 'node:fs/promises'
import { basename, dirname, join, resolve, sep } from 'node:path'
import { holdBelow, stillLeadsTo, type HeldFolder } from './heldFolder.js'
import { TaskRefusedError } from './TaskRefusedError.js'

export interface RestoreFolder {
  /** The resolved folder (realpath of the parent plus the last name). */
  path: string
  /** The resolved parent: the temporary folder is made here, so the final move is a rename. */
  parent: string
  /** Whether the folder exists already (its files are merged with the restored ones). */
  exists: boolean
  /** The parent, held by a descriptor from the check on: every write goes through `held.dir`. */
  held: HeldFolder
  /** The target's own name inside the parent. */
  name: string
  /** The restore root the parent is below (resolved), and the parent's folders below it: how it is reached again. */
  root: string
  components: string[]
  /** Whether `path` still leads (without links) to the held parent: false after a swap. */
  unchanged(): boolean
  /** Closes the descriptor (after the last write, or when the task is refused). */
  release(): void
}

const within = (root: string, path: string) => {
  const a = root.split(sep).filter(Boolean)
  const b = path.split(sep).filter(Boolean)
  return b.length > a.length && a.every((part, i) => b[i] === part)
}

export async function resolveRestoreFolder(requested: string, roots: string[]): Promise<RestoreFolder> {
  const refuse = (why: string) => new TaskRefusedError(400, `restore target "${requested}": ${why}`)
  if (!requested.startsWith('/')) throw refuse('give an absolute path')
  if (requested.includes('\0') || requested.includes('\\')) throw refuse('the path has a NUL or backslash')
  const steps = requested.split('/').filter(Boolean)
  if (steps.some((step) => step === '..' || step === '.')) throw refuse('"." and ".." steps are not allowed')
  if (roots.length === 0) throw refuse('no restore roots are configured (restore.roots)')
  const resolvedRoots = (await Promise.all(roots.map((root) => realpath(root).catch(() => undefined)))).filter((r): r is string => r !== undefined)
  const clean = '/' + steps.join('/')
  const parent = await realpath(dirname(clean)).catch(() => undefined)
  if (parent === undefined) throw refuse('its parent folder does not exist')
  const path = join(parent, basename(clean))
  const root = resolvedRoots.find((r) => within(r, path))
  if (root === undefined) throw refuse(`outside the allowed restore roots (${roots.join(', ')}); name a folder inside one`)
  const components = parent.split(sep).filter(Boolean).slice(root.split(sep).filter(Boolean).length)
  let held: HeldFolder
  try {
    held = holdBelow(root, components)
  } catch (err) {
    throw refuse(`its parent folder cannot be opened without following links (${(err as NodeJS.ErrnoException).code ?? String(err)})`)
  }
  const name = basename(clean)
  // Looked at through the held parent: what the restore will write into.
  const existing = await lstat(join(held.dir, name)).catch(() => undefined)
  if (existing && !existing.isDirectory()) {
    held.close()
    throw refuse(existing.isSymbolicLink() ? 'it is a symbolic link' : 'it exists and is not a folder')
  }
  return {
    path,
    parent,
    exists: existing !== undefined,
    held,
    name,
    root,
    components,
    unchanged: () => stillLeadsTo(root, components, held),
    release: () => held.close(),
  }
}

/**
 * The operator's folder (`restore --to DIR` on the CLI, as whoever runs it): any path, no `restore.roots`,
 * its parent folders made when missing; the same hold on the parent and the same checks of the target.
 */
export async function resolveOperatorFolder(requested: string): Promise<RestoreFolder> {
  const refuse = (why: string) => new TaskRefusedError(400, `restore target "${requested}": ${why}`)
  const absolute = resolve(requested)
  await mkdir(dirname(absolute), { recursive: true })
  const parent = await realpath(dirname(absolute))
  const name = basename(absolute)
  const held = holdBelow(parent, [])
  const existing = await lstat(join(held.dir, name)).catch(() => undefined)
  if (existing && !existing.isDirectory()) {
    held.close()
    throw refuse(existing.isSymbolicLink() ? 'it is a symbolic link' : 'it exists and is not a folder')
  }
  return {
    path: join(parent, name),
    parent,
    exists: existing !== undefined,
    held,
    name,
    root: parent,
    components: [],
    unchanged: () => stillLeadsTo(parent, [], held),
    release: () => held.close(),
  }
}
