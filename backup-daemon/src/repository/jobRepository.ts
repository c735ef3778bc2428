/**
 * @module repository/jobRepository
 * One job's snapshots over all its storage entries: what the engine, the tasks and the CLI use. Built
 * from the job's config (each entry's `includeJobName` says where the job's folder is), it lists the
 * union of the repositories (deduplicated by name, the `defaultStorage` copy first), serves downloads
 * of listed objects only, finds every copy of a snapshot for verify and restore, writes a run through
 * each kind, and sweeps leftovers and applies retention per repository.
 */
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { JobConfig, RetentionConfig, StorageConfig } from '../config/types.js'
import type { LogLevel } from '../logs/formatLine.js'
import { SnapshotNotFoundError } from '../runs/errors.js'
import { createStorage, storageFactory } from '../storages/all.js'
import type { ResticStorageConfig } from '../storages/restic/index.js'
import type { Storage, StorageContext } from '../storages/types.js'
import { archiveKind } from './archives/archiveKind.js'
import { archiveRepository } from './archives/archiveRepository.js'
import { jobLayout } from './archives/layout.js'
import { dumpOnce } from './dumpOnce.js'
import { describeRestic, resticKind } from './restic/resticKind.js'
import { describePolicy, snapshotsToKeep } from './retentionPlan.js'
import type { RepositoryKind, SnapshotDownload, SnapshotRepository, StoredSnapshot, WriteRun, WrittenSnapshot } from './types.js'

type Log = (level: LogLevel, message: string) => void

/** One repository's copy of a snapshot, or why it has none. */
export type SnapshotCopy = { repository: SnapshotRepository; snapshot: StoredSnapshot } | { repository: SnapshotRepository; missing: string }

export interface JobRepository {
  readonly job: string
  /** Every repository of the job, in the config's order. */
  readonly repositories: readonly SnapshotRepository[]
  /** Committed snapshots over every repository, newest first, one per name: the `defaultStorage` copy, else the first; `view.storages` names every copy. */
  list(): Promise<StoredSnapshot[]>
  /** A listed snapshot or one of its parts by the API's `{filename}`. Throws `SnapshotNotFoundError` (and what `StoredSnapshot.download` throws). */
  download(filename: string): Promise<SnapshotDownload>
  /** One answer per repository: its copy of `name` (the newest when undefined), or why it has none (an unreachable one does not hide the others). */
  copies(name?: string): Promise<SnapshotCopy[]>
  /** Writes and commits one snapshot into every repository. */
  write(run: WriteRun): Promise<WrittenSnapshot>
  /** Removes what unfinished runs left, repository by repository, logging what; stops at the first failure. Only while no run writes. */
  removeLeftovers(log: Log): Promise<void>
  /** Deletes what `policy` does not keep (a number is `last: N`), in every repository, logging each deletion. */
  applyRetention(policy: number | RetentionConfig, log: Log): Promise<void>
}

export interface OpenJobRepositoryOptions {
  /** The job's storage entries to use. @default every entry of the job */
  entries?: readonly StorageConfig[]
  /** Given to every storage (its log). */
  context?: StorageContext
  /** Wraps every storage as built (the CLI's `--limit-download`). */
  wrapStorage?(storage: Storage): Storage
  /** The daemon's data folder (a restic repository's daemon id and cache); needed by a job with a `type: restic` entry. */
  dataDir?: string
}

/** A repository kind other than archives: how a job's entries of it are opened, and what `check-config` says of it. */
interface RepositoryKindEntry {
  open(job: JobConfig, entries: StorageConfig[], options: OpenJobRepositoryOptions): RepositoryKind
  /** Lines about the tool the kind runs (its version, what a newer one adds), for the entries using it. */
  describe?(entries: StorageConfig[]): Promise<string[]>
}

/**
 * Storage entries whose type declares a repository kind (`StorageEntryType.repository`), by that kind;
 * every other entry is an archive repository in an object store.
 */
const repositoryKinds: Record<string, RepositoryKindEntry> = {
  restic: {
    open: (job, entries, { dataDir }) => {
      if (!dataDir) throw new Error(`job "${job.name}": a restic storage needs the daemon's dataDir`)
      return resticKind(job.name, entries as ResticStorageConfig[], { dataDir })
    },
    describe: (entries) => describeRestic(entries as ResticStorageConfig[]),
  },
}

/** What `check-config` says of the repository kinds the jobs use (e.g. the restic version and what a newer one adds). */
export async function describeRepositoryKinds(jobs: readonly JobConfig[]): Promise<string[]> {
  const lines: string[] = []
  for (const [kind, entry] of Object.entries(repositoryKinds)) {
    const entries = jobs.flatMap((job) => job.storages.filter((storage) => storageFactory(storage.type)?.repository === kind))
    if (entries.length && entry.describe) lines.push(...(await entry.describe(entries)))
  }
  return lines
}

/** `jobs[].defaultStorage` (a storage name), when the config has one. */
export const defaultStorageOf = (job: JobConfig): string | undefined => (job as JobConfig & { defaultStorage?: string }).defaultStorage

/** The job's repositories, one per storage entry. */
export function openJobRepository(job: JobConfig, options: OpenJobRepositoryOptions = {}): JobRepository {
  const entries = options.entries ?? job.storages
  const kindOf = (entry: StorageConfig) => storageFactory(entry.type)?.repository
  const archives = entries
    .filter((entry) => kindOf(entry) === undefined)
    .map((entry) => {
      const storage = createStorage(entry, options.context)
      const includeJobName = (entry as { includeJobName?: boolean }).includeJobName !== false
      return archiveRepository(options.wrapStorage ? options.wrapStorage(storage) : storage, jobLayout(job.name, includeJobName))
    })
  const kinds: RepositoryKind[] = archives.length ? [archiveKind(archives)] : []
  for (const [kind, open] of Object.entries(repositoryKinds)) {
    const ofKind = entries.filter((entry) => kindOf(entry) === kind)
    if (ofKind.length) kinds.push(open.open(job, ofKind, options))
  }
  return jobRepository(job.name, kinds, defaultStorageOf(job), options.dataDir)
}

/** The job's archive repositories in storages built elsewhere (tests, tools), each in the default layout `J/`. */
export const jobRepositoryOn = (job: JobConfig, storages: readonly Storage[]): JobRepository =>
  jobRepository(job.name, [archiveKind(storages.map((storage) => archiveRepository(storage, jobLayout(job.name))))], defaultStorageOf(job))

/** The facade over the kinds of one job (`openJobRepository` builds them from the config). */
export function jobRepository(job: string, kinds: readonly RepositoryKind[], defaultStorage?: string, dataDir?: string): JobRepository {
  const repositories = kinds.flatMap((kind) => kind.repositories)
  return {
    job,
    repositories,
    async list() {
      const ordered = [...repositories.filter((r) => r.name === defaultStorage), ...repositories.filter((r) => r.name !== defaultStorage)]
      const listings = await Promise.all(ordered.map((repository) => repository.list()))
      const byName = new Map<string, StoredSnapshot>()
      for (const [i, listing] of listings.entries()) {
        for (const snapshot of listing) {
          const seen = byName.get(snapshot.view.name)
          if (seen) seen.view.storages.push(ordered[i]!.name)
          else byName.set(snapshot.view.name, snapshot)
        }
      }
      return [...byName.values()].sort((a, b) => b.view.createdAt.localeCompare(a.view.createdAt) || b.view.name.localeCompare(a.view.name))
    },
    async download(filename) {
      for (const snapshot of await this.list()) {
        const download = await snapshot.download(filename)
        if (download) return download
      }
      throw new SnapshotNotFoundError(job, filename)
    },
    copies: (name) =>
      Promise.all(
        repositories.map(async (repository): Promise<SnapshotCopy> => {
          try {
            const snapshot = await repository.find(name)
            return snapshot ? { repository, snapshot } : { repository, missing: name === undefined ? 'no snapshot' : `no snapshot named ${name}` }
          } catch (err) {
            // One unreachable storage must not hide the others' answers (restore can use another copy).
            return { repository, missing: `cannot read the catalog: ${(err as Error).message}` }
          }
        }),
      ),
    async write(run) {
      // Sources read more than once (archives and restic, several restic repositories): each dump is taken once, read by all.
      const reads = kinds.reduce((sum, kind) => sum + (kind.sourceReads ?? 1), 0)
      const shared = reads > 1 ? await dumpOnce(run, join(dataDir ?? tmpdir(), 'spool')) : undefined
      try {
        const each = shared ? { ...run, createSources: shared.createSources } : run
        // Each kind in turn; the first kind's snapshot is the run's (archives first), with every kind's references.
        let written: WrittenSnapshot | undefined
        for (const kind of kinds) {
          const result = await kind.write(each)
          written = written ? { ...written, references: [...(written.references ?? []), ...(result.references ?? [])] } : result
        }
        if (!written) throw new Error(`job "${job}" has no storage to write to`)
        return written
      } finally {
        await shared?.cleanup()
      }
    },
    async removeLeftovers(log) {
      for (const repository of repositories) {
        const removed = await repository.removeLeftovers()
        if (removed) log('warn', `storage "${repository.name}": removed ${removed} object(s) left by an unfinished run`)
      }
    },
    async applyRetention(policy, log) {
      const rules = typeof policy === 'number' ? { last: policy } : policy
      for (const repository of repositories) {
        for (const old of await applyRetention(repository, rules)) log('info', `retention (${describePolicy(rules)}): deleted ${old} from "${repository.name}"`)
      }
    },
  }
}

/**
 * Applies a retention policy (a number is `last: N`) to one repository, over our snapshots and the
 * original service's alike, a split set counting as one; returns the names deleted. Kind-independent:
 * list, plan (`snapshotsToKeep`), forget.
 */
export async function applyRetention(repository: SnapshotRepository, policy: number | RetentionConfig): Promise<string[]> {
  const snapshots = await repository.list()
  const keep = snapshotsToKeep(
    snapshots.map(({ view }) => ({ name: view.name, createdAt: new Date(view.createdAt) })),
    typeof policy === 'number' ? { last: policy } : policy,
  )
  const doomed = snapshots.filter(({ view }) => !keep.has(view.name)).map(({ view }) => view.name)
  return doomed.length ? repository.forget(doomed) : []
}
