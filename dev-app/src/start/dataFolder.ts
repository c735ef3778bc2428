/**
 * @module start/dataFolder
 * The dev-app's data folder holds the CMS database (the admin's password hash, sessions), the generated
 * credentials, the daemon's state and snapshots: readable by its owner only (issue 28 #4). The folder is
 * 0700 and the process's umask 077, which every child (seed, CMS, daemon) inherits, so each file they
 * create is 0600 and each folder 0700. A data folder from an older version is tightened in place.
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs'
import path from 'node:path'

/** Files and folders created from now on: owner only. */
export const privateUmask = 0o077

/** Creates (or tightens) `dataDir` and its `db/` folder; sets the process umask for everything after. */
export function prepareDataFolder(dataDir: string): void {
  process.umask(privateUmask)
  mkdirSync(path.join(dataDir, 'db'), { recursive: true, mode: 0o700 })
  tighten(dataDir)
}

/** chmod go-rwx on a tree (symlinks left alone): what an older, world-readable data folder needs. */
function tighten(target: string): void {
  const stat = lstatSync(target)
  if (stat.isSymbolicLink()) return
  if ((stat.mode & 0o077) !== 0) chmodSync(target, stat.mode & 0o7700)
  if (stat.isDirectory()) for (const entry of readdirSync(target)) tighten(path.join(target, entry))
}
