/**
 * @module start/restoreSiteTarget
 * The folder `restore-site` restores into (`--data-dir`), made safe before anything is written: a local
 * user must not be able to steer the restore through it (issue 37). It must be a new folder, or an empty one
 * that is a real folder (not a symbolic link) owned by the user running the command; it is made 0700 first
 * (through a descriptor opened without following links), so nobody else can plant a link inside it between
 * the check and the writes. A failed restore empties it again, so the same command can be run once more.
 */
import { closeSync, constants, fchmodSync, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, rmSync } from 'node:fs'
import path from 'node:path'

export class RestoreTargetError extends Error {}

/** Checks (and creates) the target; throws `RestoreTargetError` saying why it cannot be used. */
export function claimRestoreTarget(target: string): void {
  const refuse = (why: string) => new RestoreTargetError(`--data-dir ${target}: ${why}`)
  let existing = lstatOrNone(target)
  if (!existing) {
    if (!lstatOrNone(path.dirname(target))?.isDirectory()) throw refuse(`its parent folder ${path.dirname(target)} does not exist`)
    try {
      mkdirSync(target, { mode: 0o700 })
    } catch (err) {
      // Created by someone else since the check: not ours.
      throw refuse(`it could not be created (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`)
    }
    existing = lstatSync(target)
  }
  if (existing.isSymbolicLink()) throw refuse('it is a symbolic link; give a real folder')
  if (!existing.isDirectory()) throw refuse('it is not a folder')
  const fd = openSync(target, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW)
  try {
    const info = fstatSync(fd)
    const uid = process.getuid?.()
    if (uid !== undefined && info.uid !== uid) throw refuse(`it belongs to user id ${info.uid}, not to you (${uid}); give a folder of your own`)
    // Private before it is looked into: nothing can be planted in it from now on.
    fchmodSync(fd, 0o700)
  } finally {
    closeSync(fd)
  }
  const entries = readdirSync(target)
  if (entries.length > 0) throw refuse(`it is not empty (${entries.slice(0, 3).join(', ')}${entries.length > 3 ? ', …' : ''}); give a new data folder`)
}

/** Empties the target after a failure (everything in it is the restore's own). */
export function emptyRestoreTarget(target: string): void {
  for (const entry of readdirSync(target)) rmSync(path.join(target, entry), { recursive: true, force: true })
}

function lstatOrNone(file: string) {
  try {
    return lstatSync(file)
  } catch {
    return undefined
  }
}
