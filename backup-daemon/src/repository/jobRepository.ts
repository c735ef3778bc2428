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
import { SnapshotNotFoundError, SnapshotVerifyFailedError } from '../runs/errors.js'
import { createStorage, storageFactory } from '../storages/all.js'
import type { ResticStorageConfig } from '../storages/restic/index.js'
import type { Storage, StorageContext } from '../storages/types.js'
import { archiveKind } from './archives/archiveKind.js'
import { archiveRepository } from './archives/archiveRepository.js'
import { jobLayout } from './archives/layout.js'
import { damageLedger, noDamageLedger, type DamageLedger } from './damageLedger.js'
import { dumpOnce } from './dumpOnce.js'
import type { RepositoryNote } from './restic/checkRepository.js'
import { describeRestic, resticKind } from './restic/resticKind.js'
import { describePolicy, snapshotsToKeep } from './retentionPlan.js'
import type { RepositoryKind, SnapshotDownload, SnapshotRepository, SnapshotView, StoredSnapshot, WriteRun, WrittenSnapshot } from './types.js'

type Log = (level: LogLevel, message: string) => void

/** What the repositories of a job that answered hold, and which did not answer. */
export interface JobListing {
  snapshots: StoredSnapshot[]
  down: { storage: string; error: string }[]
}

/** One repository's copy of a snapshot, or why it has none. */
export type SnapshotCopy =
  | { repository: SnapshotRepository; snapshot: StoredSnapshot }
  /** `unreadable`: the storage did not answer (`missing` says why), so whether it holds a copy is not known. */
  | { repository: SnapshotRepository; missing: string; unreadable?: true }

export interface JobRepository {
  readonly job: string
  /** Every repository of the job, in the config's order. */
  readonly repositories: readonly SnapshotRepository[]
  /**
   * Committed snapshots over every repository, newest first, one per name: the `defaultStorage` copy, else the
   * first; `view.storages` names every copy. Throws when a repository cannot be listed.
   */
  list(): Promise<StoredSnapshot[]>
  /** As `list`, over the repositories that answer; the others are named in `down` with why (one storage down never hides the rest). */
  listing(): Promise<JobListing>
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
  /** A verify of `snapshot` on `storage` ended: a failure shows the copy damaged in the listing until a later one passes (`damageLedger`). */
  noteVerified(storage: string, snapshot: string, result: { ok: boolean; problems: string[] }): void
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
  /** Lines about the tool the kind runs (its version, what a newer one adds) and what each entry's repository answers. */
  describe?(entries: StorageConfig[], dataDir: string): Promise<RepositoryNote[]>
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
    describe: (entries, dataDir) => describeRestic(entries as ResticStorageConfig[], dataDir),
  },
}

/** What `check-config` says of the repository kinds the jobs use (the restic version, what a newer one adds, each repository's answer). */
export async function describeRepositoryKinds(jobs: readonly JobConfig[], dataDir: string): Promise<RepositoryNote[]> {
  const notes: RepositoryNote[] = []
  for (const [kind, entry] of Object.entries(repositoryKinds)) {
    const entries = jobs.flatMap((job) => job.storages.filter((storage) => storageFactory(storage.type)?.repository === kind))
    if (entries.length && entry.describe) notes.push(...(await entry.describe(entries, dataDir)))
  }
  return notes
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
  const ledger = dataDir ? damageLedger(dataDir, job) : noDamageLedger
  return {
    job,
    repositories,
    async list() {
      const { snapshots, down } = await this.listing()
      if (down.length > 0) throw new Error(`storage "${down[0]!.storage}" cannot be listed: ${down[0]!.error}`)
      return snapshots
    },
    async listing() {
      const ordered = [...repositories.filter((r) => r.name === defaultStorage), ...repositories.filter((r) => r.name !== defaultStorage)]
      const answers = await Promise.allSettled(ordered.map((repository) => repository.list()))
      const byName = new Map<string, StoredSnapshot[]>()
      const down: JobListing['down'] = []
      for (const [i, answer] of answers.entries()) {
        if (answer.status === 'rejected') {
          down.push({ storage: ordered[i]!.name, error: (answer.reason as Error)?.message ?? String(answer.reason) })
          continue
        }
        for (const snapshot of answer.value) byName.set(snapshot.view.name, [...(byName.get(snapshot.view.name) ?? []), snapshot])
      }
      joinRunCopies(byName, (storage) => ordered.findIndex((r) => r.name === storage))
      const snapshots = [...byName.values()]
        .map((copies) => shownCopy(copies, ledger))
        .sort((a, b) => b.view.createdAt.localeCompare(a.view.createdAt) || b.view.name.localeCompare(a.view.name))
      return { snapshots, down }
    },
    async download(filename) {
      // From the storages that answer: one down does not stop a download from another.
      for (const snapshot of (await this.listing()).snapshots) {
        const download = await snapshot.download(filename)
        if (!download) continue
        // Every copy failed its last verify: not served (a download that could not be trusted); its parts' answers too.
        const damage = ledger.damageOf(snapshot.view.storage, snapshot.view.name)
        if (damage) throw new SnapshotVerifyFailedError(filename, snapshot.view.storages, damage)
        return download
      }
      throw new SnapshotNotFoundError(job, filename)
    },
    noteVerified: (storage, snapshot, result) => ledger.note(storage, snapshot, result),
    copies: (name) =>
      Promise.all(
        repositories.map(async (repository): Promise<SnapshotCopy> => {
          try {
            // By its name, else the same run under this kind's name (a listed item names its shown copy).
            const snapshot =
              (await repository.find(name)) ?? (name === undefined ? undefined : (await repository.list()).find((s) => sameRun(s.view.name, name)))
            return snapshot ? { repository, snapshot } : { repository, missing: name === undefined ? 'no snapshot' : `no snapshot named ${name}` }
          } catch (err) {
            // One unreachable storage must not hide the others' answers (restore can use another copy).
            return { repository, missing: `cannot be read: ${(err as Error).message}`, unreadable: true }
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

/** What names one run in every kind: a snapshot name without its archive extension (`.tar.gz`, `.zip.age`, ...). */
const runKey = (name: string): string => name.replace(/\.(tar|tar\.gz|tar\.zst|tar\.xz|zip)(\.age|\.enc)?$/, '')

/**
 * One run's copies under each kind's name: an archive `J-<time>.tar.gz` and the restic run `J-<time>`. Two
 * archives of one time with other extensions (`.tar` and `.tar.gz`) are two snapshots, not one run's copies.
 */
const sameRun = (a: string, b: string): boolean => a === b || (runKey(a) === runKey(b) && (runKey(a) === a || runKey(b) === b))

/**
 * Moves each extension-less copy (restic's `J-<time>`) into the first archive item of its run, so one run is
 * one listed item held by both storages; the copies stay in storage order (`rank`: the default storage first).
 */
function joinRunCopies(byName: Map<string, StoredSnapshot[]>, rank: (storage: string) => number): void {
  const archiveOf = new Map<string, string>()
  for (const name of byName.keys()) if (runKey(name) !== name && !archiveOf.has(runKey(name))) archiveOf.set(runKey(name), name)
  for (const [name, copies] of byName) {
    const archive = runKey(name) === name ? archiveOf.get(name) : undefined
    if (!archive) continue
    const joined = [...byName.get(archive)!, ...copies].sort((a, b) => rank(a.view.storage) - rank(b.view.storage))
    byName.set(archive, joined)
    byName.delete(name)
  }
}

/**
 * The listing's one item for the copies of a snapshot (in storage order, `defaultStorage` first): the first
 * copy not known damaged is the one shown and downloaded; `storages` names every copy; a copy whose last
 * verify failed (`damageLedger`) makes the item `damaged`, its reason naming the storage, until a verify passes.
 */
function shownCopy(copies: StoredSnapshot[], ledger: DamageLedger): StoredSnapshot {
  const damages = copies.map((copy) => ledger.damageOf(copy.view.storage, copy.view.name))
  const chosen = copies[damages.findIndex((damage, i) => !damage && !copies[i]!.view.damaged)] ?? copies[0]!
  const reasons = [
    ...(chosen.view.damaged ? [chosen.view.damageReason ?? 'incomplete'] : []),
    ...damages.flatMap((damage, i) => (damage ? [`storage "${copies[i]!.view.storage}" failed its verify at ${damage.at}: ${damage.reason}`] : [])),
  ]
  const view: SnapshotView = {
    ...chosen.view,
    storages: copies.map((copy) => copy.view.storage),
    damaged: reasons.length > 0,
    ...(reasons.length > 0 && { damageReason: reasons.join('; ') }),
  }
  // The chosen copy's methods, with the view of the whole; a download by another copy's own name is that copy's.
  return {
    view,
    size: chosen.size,
    download: async (filename) => {
      for (const copy of [chosen, ...copies.filter((c) => c !== chosen)]) {
        const found = await copy.download(filename)
        if (found) return found
      }
      return undefined
    },
    openTar: (options) => chosen.openTar(options),
    verify: (options) => chosen.verify(options),
    explainReadError: (err) => chosen.explainReadError(err),
    ...(chosen.listedFiles && { listedFiles: (options) => chosen.listedFiles!(options) }),
    ...(chosen.directRestore && { directRestore: (options) => chosen.directRestore!(options) }),
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
