/**
 * @module daemon/privateTempFolder
 * Every temporary file and folder a daemon process makes goes into one folder of its own,
 * `<system temp>/backup-daemon-tmp-<pid>-XXXXXX`, so that whatever a killed process leaves there is found
 * and removed at the next start, whatever part made it (issue 39 #4: a killed run's empty
 * `backup-daemon-restic-*` folder, a drill's temporary PostgreSQL cluster). The command sets `TMPDIR` to
 * it first thing: `os.tmpdir()` and every `mkdtemp` under it (restic's scratch, spool files, SQLite
 * copies, mirrors, a temporary server's socket and data folder) land inside, and so do the temporary
 * files of the children, which inherit the variable (restic's pack files). A normal exit removes the
 * folder; at the next start of any command, the folders of this user's processes that are gone are
 * removed (a pid still alive, perhaps reused, keeps its folder). A folder named with the starting
 * process's own pid is a dead one's too (a container's daemon gets the same low pid at every start): the
 * sweep runs before this process makes its own.
 *
 * The folder is 0700, or 0711 when running as root (a temporary PostgreSQL server runs as `postgres` and
 * must reach its socket folder inside; the names in it are random, and other users cannot list it).
 */
import { chmodSync, lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { processAlive } from '../sources/support/processAlive.js'

export const privateTempPrefix = 'backup-daemon-tmp-'
const pattern = /^backup-daemon-tmp-(\d+)-[A-Za-z0-9]{6}$/

let current: { dir: string; swept: string[] } | undefined

/**
 * Removes the private folders of this user's dead processes in `base`; returns their names. Only real
 * folders owned by this user (never a link, never someone else's), whose process is gone; this process's
 * own pid counts as gone but for the folder it made.
 */
export function sweepPrivateTempFolders(base = tmpdir()): string[] {
  const swept: string[] = []
  const uid = process.getuid?.()
  for (const name of readdirSync(base)) {
    const pid = Number(pattern.exec(name)?.[1])
    if (!pid || (pid !== process.pid && processAlive(pid))) continue
    const path = join(base, name)
    if (path === current?.dir) continue
    try {
      const stat = lstatSync(path)
      if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid)) continue
      rmSync(path, { recursive: true, force: true })
      swept.push(path)
    } catch {
      // Gone meanwhile, or not ours to remove: the next start tries again.
    }
  }
  return swept
}

/**
 * Sweeps the dead processes' folders, makes this process's own, and points `TMPDIR` at it (once per
 * process; later calls return the same). The folder is removed when the process exits.
 */
export function usePrivateTempFolder(): { dir: string; swept: string[] } {
  if (current) return current
  const base = tmpdir()
  let swept: string[] = []
  try {
    swept = sweepPrivateTempFolders(base)
    const dir = mkdtempSync(join(base, `${privateTempPrefix}${process.pid}-`))
    if (process.getuid?.() === 0) chmodSync(dir, 0o711)
    process.env.TMPDIR = dir
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
    current = { dir, swept }
  } catch {
    // A temp folder that cannot be listed or written: left as it is, so only what needs it fails, saying where.
    current = { dir: base, swept }
  }
  return current
}

/** The folders swept when this process started (for the daemon's log); empty before `usePrivateTempFolder`. */
export function sweptAtStart(): string[] {
  return current?.swept ?? []
}
