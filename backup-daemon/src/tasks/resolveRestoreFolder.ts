/**
 * @module tasks/resolveRestoreFolder
 * Checks a restore folder asked for by a client against `restore.roots` before anything is written:
 * the path must be absolute, without `.`/`..` steps (refused before any resolving), strictly below a
 * root, its parent folder must exist, and an existing target must be a folder. The existing part of the
 * path is resolved with realpath (so a link inside a root pointing outside is caught), then compared with
 * each root's realpath component by component (`/srv/restore2` is not below `/srv/restore`).
 */
import { lstat, realpath } from 'node:fs/promises'
import { basename, dirname, join, sep } from 'node:path'
import { TaskRefusedError } from './TaskRefusedError.js'

export interface RestoreFolder {
  /** The resolved folder (realpath of the parent plus the last name). */
  path: string
  /** The resolved parent: the temporary folder is made here, so the final move is a rename. */
  parent: string
  /** Whether the folder exists already (its files are merged with the restored ones). */
  exists: boolean
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
  if (!resolvedRoots.some((root) => within(root, path))) throw refuse(`outside the allowed restore roots (${roots.join(', ')}); name a folder inside one`)
  const existing = await lstat(path).catch(() => undefined)
  if (existing && !existing.isDirectory()) throw refuse(existing.isSymbolicLink() ? 'it is a symbolic link' : 'it exists and is not a folder')
  return { path, parent, exists: existing !== undefined }
}
