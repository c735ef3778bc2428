/**
 * @module config/checkPaths
 * What `check-config` verifies on the machine beyond the file's syntax (issue 24 #13): the folders the
 * daemon writes (data folder, logs, local storages) are writable by the user running the check, and the
 * local files and folders jobs read exist. Run as the service user (the unit's `ExecStartPre`, or
 * `runuser -u backup-daemon -- backup-daemon check-config ...`), it answers for the daemon.
 */
import { accessSync, constants, statSync } from 'node:fs'
import { userInfo } from 'node:os'
import { dirname } from 'node:path'
import { sourceFactory } from '../sources/all.js'
import type { DaemonConfig } from './types.js'
import type { Path } from './snaprAliases.js'

export interface PathProblem {
  /** Key path in our spelling, e.g. `['jobs', 0, 'sources', 1, 'path']`. */
  path: Path
  message: string
}

function who(): string {
  try {
    return `user ${userInfo().username}`
  } catch {
    return `uid ${process.getuid?.() ?? '?'}`
  }
}

/** The folder itself when it exists, else its nearest existing ancestor (the daemon creates the rest). */
function nearestExisting(path: string): string {
  let current = path
  for (;;) {
    try {
      statSync(current)
      return current
    } catch {
      const parent = dirname(current)
      if (parent === current) return current
      current = parent
    }
  }
}

/** Why the daemon could not create or write `folder`, or undefined. */
function unwritable(folder: string): string | undefined {
  const existing = nearestExisting(folder)
  try {
    if (!statSync(existing).isDirectory()) return `${existing} is not a folder`
    accessSync(existing, constants.W_OK | constants.X_OK)
    return undefined
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    const reason = code === 'EROFS' ? 'is on a read-only file system' : `is not writable by ${who()}`
    return existing === folder ? `${folder} ${reason}` : `${folder} cannot be created: ${existing} ${reason}`
  }
}

/** Why a path a job reads is missing or of the wrong kind, or undefined. */
function unreadable(path: string, kind: 'folder' | 'file'): string | undefined {
  try {
    const stat = statSync(path)
    if (kind === 'folder' && !stat.isDirectory()) return `${path} is not a folder`
    if (kind === 'file' && !stat.isFile()) return `${path} is not a file`
    accessSync(path, constants.R_OK)
    return undefined
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return `${path} does not exist`
    if (code === 'EACCES') return `${path} is not readable by ${who()}`
    return `${path}: ${(err as Error).message}`
  }
}

/** Every problem found, in file order (data folder, logs, then per job its sources and storages). */
export function checkPaths(config: DaemonConfig): PathProblem[] {
  const problems: PathProblem[] = []
  const report = (path: Path, message: string | undefined, hint: string) => message && problems.push({ path, message: `${message}: ${hint}` })
  report(['dataDir'], unwritable(config.dataDir), 'the daemon keeps its state, locks and logs there; create it for the service user or choose another dataDir')
  if (config.logs.system || config.logs.perJob) {
    report(['logs', 'directory'], unwritable(config.logs.directory), 'create it for the service user or set logs.directory')
  }
  config.jobs.forEach((job, index) => {
    job.sources.forEach((source, at) => {
      // The paths each kind reads, as its factory declares them (a folder, a database file).
      for (const { key, kind } of sourceFactory(source.type)?.readPaths ?? []) {
        const path = (source as unknown as Record<string, unknown>)[key]
        if (typeof path === 'string') report(['jobs', index, 'sources', at, key], unreadable(path, kind), 'the job would fail; fix the path')
      }
    })
    job.storages.forEach((storage, at) => {
      const path = (storage as { path?: unknown }).path
      if (storage.type === 'local' && typeof path === 'string')
        report(
          ['jobs', index, 'storages', at, 'path'],
          unwritable(path),
          'snapshots could not be written; create it for the service user or choose another path',
        )
    })
  })
  return problems
}
