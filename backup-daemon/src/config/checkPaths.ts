/**
 * @module config/checkPaths
 * What `check-config` verifies on the machine beyond the file's syntax (issue 24 #13): the folders the
 * daemon writes (data folder, logs, local storages) are writable by the user running the check, and the
 * local files and folders jobs read exist. Run as the service user (the unit's `ExecStartPre`, or
 * `runuser -u backup-daemon -- backup-daemon check-config ...`), it answers for the daemon.
 */
import { accessSync, constants, statSync } from 'node:fs'
import { userInfo } from 'node:os'
import { dirname, isAbsolute, join } from 'node:path'
import { sourceFactory } from '../sources/all.js'
import { storageFactory } from '../storages/all.js'
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

/** What the check reads of a config: its folders and each job's sources and storages (paths absolute). */
export type CheckedPaths = Pick<DaemonConfig, 'dataDir'> & {
  logs: Pick<DaemonConfig['logs'], 'system' | 'perJob' | 'directory'>
  jobs: { sources: { type: string }[]; storages: { type: string }[] }[]
}

/**
 * The paths of a file the schema refused, read as written (relative ones against `baseDir`, the schema's
 * defaults for the data and log folders), so `check-config` reports a missing folder in the same pass as
 * the file's errors instead of after they are fixed (issue 38). Entries without a `type` are left out.
 */
export function pathsAsWritten(raw: unknown, baseDir: string): CheckedPaths {
  const abs = (path: string) => (isAbsolute(path) ? path : join(baseDir, path))
  const object = (value: unknown): Record<string, unknown> =>
    value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
  const list = (value: unknown): Record<string, unknown>[] => (Array.isArray(value) ? value.map(object) : [])
  const top = object(raw)
  const logs = object(top.logs)
  const dataDir = abs(typeof top.dataDir === 'string' ? top.dataDir : './data')
  // The keys the loader resolves: a kind's `pathKeys`, and a storage's `resolvePaths` (a restic folder repository).
  const typed = (
    entries: Record<string, unknown>[],
    keysOf: (type: string) => readonly string[],
    more?: (type: string, entry: Record<string, unknown>) => unknown,
  ) =>
    entries.map((entry) => {
      if (typeof entry.type !== 'string') return { type: '' }
      let resolved: Record<string, unknown> = { ...entry }
      for (const key of keysOf(entry.type)) if (typeof entry[key] === 'string') resolved[key] = abs(entry[key])
      try {
        resolved = (more?.(entry.type, resolved) as Record<string, unknown> | undefined) ?? resolved
      } catch {
        // An entry the schema refused (a repository that is not a string): its error is already reported.
      }
      return resolved as { type: string }
    })
  return {
    dataDir,
    logs: {
      system: logs.system !== false,
      perJob: logs.perJob !== false,
      directory: typeof logs.directory === 'string' ? abs(logs.directory) : join(dataDir, 'logs'),
    },
    jobs: list(top.jobs).map((job) => ({
      sources: typed(list(job.sources), (type) => sourceFactory(type)?.pathKeys ?? []),
      storages: typed(
        list(job.storages),
        (type) => storageFactory(type)?.pathKeys ?? [],
        (type, entry) => storageFactory(type)?.resolvePaths?.(entry as never, abs),
      ),
    })),
  }
}

/** Every problem found, in file order (data folder, logs, then per job its sources and storages). */
export function checkPaths(config: CheckedPaths): PathProblem[] {
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
      let folder: { key: string; path: string } | undefined
      try {
        folder = storageFactory(storage.type)?.writesFolder?.(storage as never)
      } catch {
        return // An entry the schema refused: its error is already reported.
      }
      if (typeof folder?.path !== 'string') return
      report(
        ['jobs', index, 'storages', at, folder.key],
        unwritable(folder.path),
        'snapshots could not be written; create it for the service user or choose another path',
      )
    })
  })
  return problems
}
