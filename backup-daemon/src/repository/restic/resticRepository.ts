/**
 * @module repository/restic/resticRepository
 * One job's runs in one restic repository as the layer's `SnapshotRepository`: this daemon's committed
 * runs of the job (`snapshots --json --tag job=…,daemon=…`, grouped by run), each a `StoredSnapshot`
 * read through `restic dump` (`resticTar.ts`) and verified with `restic check` and a full read (restic
 * checks every blob's hash as it reads). Forgetting and removing leftovers run `forget --prune`, after
 * removing this host's dead locks (`resticLocks.ts`).
 */
import type { ReadOptions, SnapshotRepository, StoredSnapshot, VerifyResult } from '../types.js'
import type { ListingCache } from './listingCache.js'
import { describeForeignLocks, removeOwnDeadLocks } from './resticLocks.js'
import { restic, resticJson, type ResticTarget } from './resticProcess.js'
import { groupRuns, listFilter, type ResticRunRecord, type ResticSnapshot, type RunIdentity } from './resticRuns.js'
import { isMissing, isMissingSnapshot, markRepositoryExists, resticLocked } from './resticSession.js'
import { listedFiles, openRunTar, tarEnd } from './resticTar.js'
import { planRunRestore } from './resticRestore.js'
import { resticVersion } from './resticVersion.js'

export interface ResticRepository extends SnapshotRepository {
  readonly target: ResticTarget
  /** The job and daemon whose snapshots these are (resolved on first use: the daemon id is read from disk). */
  identity(): Promise<RunIdentity>
  /** Committed runs as last listed by this object (listed now when never): a write's parent snapshots. */
  previousRuns(): Promise<ResticRunRecord[]>
  /** Around a run's write: the listing cache is dropped before, and after a commit holds the run too. */
  beginWrite(): Promise<void>
  endWrite(committed: ResticRunRecord | undefined): Promise<void>
}

export function resticRepository(
  name: string,
  job: string,
  target: ResticTarget,
  identity: () => Promise<RunIdentity>,
  cache?: ListingCache,
): ResticRepository {
  /** The last listing, kept for the write that follows `removeLeftovers` in a run (its parent snapshots). */
  let listed: ResticRunRecord[] | undefined
  /** The runs before the write in progress (the cache after it: these and the new run). */
  let beforeWrite: ResticRunRecord[] = []
  const runs = async (): Promise<ResticRunRecord[]> => {
    // What this daemon last wrote or listed, kept between runs: one restic command (key derivation) less.
    const known = await cache?.read()
    if (known) {
      markRepositoryExists(target)
      return (listed = known)
    }
    let snapshots: ResticSnapshot[] | null
    try {
      snapshots = await resticJson<ResticSnapshot[] | null>(target, ['snapshots', '--no-lock', ...listFilter(await identity())])
    } catch (err) {
      // No repository yet: no runs (the first write creates it).
      if (isMissing(err)) return (listed = [])
      throw err
    }
    markRepositoryExists(target)
    listed = groupRuns(snapshots ?? [])
    await cache?.seed(listed)
    return listed
  }
  /** A change by this daemon: the cache goes before, and comes back with `after` once it succeeded. */
  const changing = async <T>(change: () => Promise<T>, after: (result: T) => ResticRunRecord[]): Promise<T> => {
    await cache?.begin()
    let result: T
    try {
      result = await change()
    } catch (err) {
      await cache?.abandon()
      throw err
    }
    await cache?.store(after(result))
    return result
  }
  /** Removes this host's dead locks; a stale lock of another host stops an exclusive command, saying whose. */
  const unlockOwn = async () => {
    const { foreign } = await removeOwnDeadLocks(target)
    if (foreign.length) throw new Error(`restic "${name}": ${describeForeignLocks(foreign)}`)
  }
  /** `forget --prune`; `unlocked`: this host's dead locks were just removed (`list locks` is one restic command more). */
  const forgetIds = async (ids: string[], unlocked = false) => {
    if (ids.length === 0) return
    if (!unlocked) await unlockOwn()
    await resticLocked(target, ['forget', '--prune', ...ids])
  }
  const repository: ResticRepository = {
    name,
    type: 'restic',
    target,
    identity,
    async list() {
      // A read that finds a listed run's snapshot gone (removed with plain restic) drops the kept listing.
      const stale = async () => {
        listed = undefined
        await cache?.drop()
      }
      return (await runs()).filter((run) => run.commit).map((run) => storedRun(repository, job, run, stale))
    },
    async find(wanted) {
      const listed = await this.list()
      return wanted === undefined ? listed[0] : listed.find((snapshot) => snapshot.view.name === wanted)
    },
    async removeLeftovers() {
      const all = await runs()
      // Killed runs' snapshots, and what a killed `restic tag` left beside a committed run's tagged copy.
      const leftovers = all.flatMap((run) => (run.commit ? (run.strays ?? []) : run.ids))
      const withoutStrays = (run: ResticRunRecord): ResticRunRecord => {
        const { strays, ...rest } = run
        return strays ? { ...rest, ids: rest.ids.filter((id) => !strays.includes(id)) } : run
      }
      if (leftovers.length)
        await changing(
          () => forgetIds(leftovers),
          () => (listed = all.filter((run) => run.commit).map(withoutStrays)),
        )
      return leftovers.length
    },
    async previousRuns() {
      // Once: the run about to be written makes this listing old.
      const known = listed ?? (await runs())
      listed = undefined
      beforeWrite = known
      return known.filter((run) => run.commit)
    },
    beginWrite: async () => cache?.begin(),
    async endWrite(committed) {
      if (committed) await cache?.store([committed, ...beforeWrite])
      else await cache?.abandon()
    },
    async forget(names) {
      listed = undefined
      const all = await runs()
      const doomed = all.filter((run) => run.commit && names.includes(run.name))
      if (!doomed.length) return []
      return changing(
        async () => {
          // The snapshots holding the commits first: a forget stopped half-way leaves unlisted leftovers, never a listed run missing a source.
          await unlockOwn()
          const commits = doomed.map((run) => run.commit!.id)
          const rest = doomed.flatMap((run) => run.ids.filter((id) => id !== run.commit!.id))
          // Runs of one source each: their snapshot is the commit, one `forget --prune` is all.
          if (!rest.length) await resticLocked(target, ['forget', '--prune', ...commits])
          else {
            await resticLocked(target, ['forget', ...commits])
            await forgetIds(rest, true)
          }
          return doomed.map((run) => run.name)
        },
        () => all.filter((run) => !doomed.includes(run)),
      )
    },
  }
  return repository
}

function storedRun(repository: ResticRepository, job: string, run: ResticRunRecord, stale: () => Promise<void>): StoredSnapshot {
  const { target } = repository
  /** The run's sources a read wants: each source is its own restic snapshot, so only those are read. */
  const wanted = (options: ReadOptions) => (options.sources ? run.sources.filter((source) => options.sources!.includes(source.name)) : run.sources)
  const snapshot: StoredSnapshot = {
    view: {
      id: run.name,
      name: run.name,
      jobName: job,
      path: run.name,
      size: run.size,
      createdAt: run.createdAt.toISOString(),
      storageType: 'restic',
      isSplit: false,
      fullDownloadSupported: true,
      partsCount: 1,
      checksummed: true,
      damaged: false,
      storage: repository.name,
      storages: [repository.name],
    },
    size: run.size,
    async download(filename) {
      if (filename !== run.name && filename !== `${run.name}.tar`) return undefined
      return {
        kind: 'stream',
        filename: `${run.name}.tar`,
        size: run.size,
        contentType: 'application/x-tar',
        open: async () => openRunTar(target, run.sources),
      }
    },
    openTar: async (options: ReadOptions) => openRunTar(target, wanted(options), options),
    listedFiles: (options: ReadOptions) => listedFiles(target, run.sources, options.signal),
    directRestore: (options: ReadOptions) => planRunRestore(target, wanted(options), options),
    async verify(options: ReadOptions): Promise<VerifyResult> {
      const problems: string[] = []
      const sources = wanted(options)
      const whole = sources.length === run.sources.length
      // `restic check` is of the whole repository; a read of some sources checks their blobs as it reads them.
      if (whole) {
        try {
          // A lock this host's killed restic left would hold `check` (it locks the repository) for 5 minutes.
          await removeOwnDeadLocks(target, options.signal)
          await resticLocked(target, ['check'], options.signal ? { signal: options.signal } : {}, await resticVersion(target.binary))
        } catch (err) {
          options.signal?.throwIfAborted()
          problems.push(`${(err as Error).message}${await packOfDamagedBlob(target, (err as Error).message)}`)
        }
      }
      let bytes = 0
      try {
        const tar = openRunTar(target, sources, { ...options, onBytes: (n) => ((bytes += n), options.onBytes?.(n)) })
        for await (const _chunk of tar) options.signal?.throwIfAborted()
      } catch (err) {
        options.signal?.throwIfAborted()
        if (isMissingSnapshot(err)) {
          await stale()
          problems.push(snapshot.explainReadError(err as Error).message)
        } else problems.push(`reading ${run.name}: ${(err as Error).message}${await packOfDamagedBlob(target, (err as Error).message)}`)
      }
      const expected = whole ? run.size : sources.reduce((sum, source) => sum + (source.size ?? 0), tarEnd)
      if (!problems.length && bytes !== expected) problems.push(`${run.name}: read ${bytes} bytes, the run recorded ${expected}`)
      const checkedBy = whole
        ? 'restic check passed and every blob of the run was read back, each checked against its hash'
        : `every blob of source(s) ${sources.map((s) => s.name).join(', ')} was read back, each checked against its hash`
      return { ok: problems.length === 0, problems, partsChecked: 1, bytes, checkedBy }
    },
    explainReadError(err) {
      if (!isMissingSnapshot(err)) return err
      void stale().catch(() => {})
      return new Error(
        `${run.name}: a snapshot of this run is no longer in restic "${repository.name}" (removed with plain restic?); the daemon lists the repository again`,
        { cause: err },
      )
    },
  }
  return snapshot
}

/** `; in pack file data/ab/abcd…` for a read error naming a blob (restic names the blob, the operator needs the file). */
async function packOfDamagedBlob(target: ResticTarget, message: string): Promise<string> {
  const blob = /blob ([0-9a-f]{64})/.exec(message)?.[1]
  if (!blob) return ''
  // A data blob or a tree (folder listing) blob: `find` asks for one kind at a time.
  for (const kind of ['--blob', '--tree']) {
    try {
      const found = await restic(target, ['find', kind, blob, '--show-pack-id', '--no-lock'])
      const pack = /belongs to pack ([0-9a-f]{64})/.exec(found)?.[1]
      if (pack) return `; the blob is in pack file data/${pack.slice(0, 2)}/${pack}`
    } catch {
      // Not found as this kind, or the repository cannot say: the message stays as restic wrote it.
    }
  }
  return ''
}
