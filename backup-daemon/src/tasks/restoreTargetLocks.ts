/**
 * @module tasks/restoreTargetLocks
 * One restore per target at a time, across jobs: two restores into the same folder (or one inside the
 * other's), or into the same configured database, would each check for conflicts against a target the
 * other is changing, and both "succeed" with `overwrite: false` while one replaces the other's files.
 * The second is refused with 409 before anything is read.
 */
import { sep } from 'node:path'
import { TaskRefusedError } from './TaskRefusedError.js'

export interface RestoreTargetLocks {
  /** Claims `key` (a resolved folder path, or `database:<name>`); returns its release. 409 when taken. */
  claim(key: string, label: string): () => void
}

/** A folder and anything inside it are the same target; two databases only when equal. */
const overlaps = (a: string, b: string) => a === b || (a.startsWith('/') && b.startsWith('/') && (a.startsWith(b + sep) || b.startsWith(a + sep)))

export function restoreTargetLocks(): RestoreTargetLocks {
  const held = new Map<string, string>()
  return {
    claim(key, label) {
      for (const [other, job] of held) {
        if (overlaps(key, other))
          throw new TaskRefusedError(409, `a restore of job "${job}" into ${other} is running; wait for it to end before restoring into ${key}`)
      }
      held.set(key, label)
      let released = false
      return () => {
        if (!released) held.delete(key)
        released = true
      }
    },
  }
}
