/**
 * @module repository/restic/resticKind
 * The restic kind (issue 27): the job's `type: restic` storage entries as repositories, and a run written
 * into each of them in turn (sources are single-use: each repository backs up from new ones). The daemon's
 * id (`<dataDir>/daemon-id`) tags its snapshots, so daemons sharing a repository list only their own.
 */
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import type { ResticStorageConfig } from '../../storages/restic/index.js'
import type { RepositoryKind, WriteRun, WrittenSnapshot } from '../types.js'
import { checkResticRepository, type RepositoryNote } from './checkRepository.js'
import { cleanUpFailedWrite } from './cleanUpFailedWrite.js'
import { listingCache } from './listingCache.js'
import { resticRepository, type ResticRepository } from './resticRepository.js'
import { runName } from './resticRuns.js'
import { daemonId, ensureRepository, targetOf } from './resticSession.js'
import { describeVersion, resticVersion } from './resticVersion.js'
import { writeResticRun } from './resticWrite.js'

export interface ResticKindOptions {
  /** The daemon's data folder: its id and restic's cache live there. */
  dataDir: string
}

export function resticKind(job: string, entries: readonly ResticStorageConfig[], options: ResticKindOptions): RepositoryKind {
  const identity = async () => ({ job, daemon: await daemonId(options.dataDir) })
  const repositories = entries.map((entry) => {
    const target = targetOf(entry, options.dataDir)
    // One file per repository location and job (the daemon id is the data folder's own).
    const key = createHash('sha256').update(target.repository).digest('hex').slice(0, 16)
    const cache = listingCache(join(options.dataDir, 'restic-listing', `${key}-${job}.json`))
    return resticRepository(entry.name, job, target, identity, cache)
  })
  return { repositories, write: (run) => writeRepositories(repositories, run), sourceReads: repositories.length }
}

async function writeRepositories(repositories: readonly ResticRepository[], run: WriteRun): Promise<WrittenSnapshot> {
  const name = runName(run.job.name, run.createdAt)
  let size = 0
  const references: WrittenSnapshot['references'] = []
  for (const repository of repositories) {
    // Asked together (each may start a process or read a file): every unchanged nightly run waits for them.
    // The listing comes before `ensureRepository`: one that finds the repository spares it its own restic command.
    const [version, [previous], identity] = await Promise.all([resticVersion(repository.target.binary), repository.previousRuns(), repository.identity()])
    // The version only: what a newer one would add is check-config's to say, not every run's.
    run.log('info', `restic "${repository.name}": ${version.text}`)
    await ensureRepository(repository.target, run.signal)
    const into = { target: repository.target, identity, version, name: repository.name, ...(previous && { previous }) }
    await repository.beginWrite()
    let written: Awaited<ReturnType<typeof writeResticRun>> | undefined
    try {
      written = await writeResticRun(into, run, name, run.createSources()).catch((err: unknown) => cleanUpFailedWrite(repository, run, err))
    } finally {
      // A listing found stale during the write is not kept: the next one lists the repository again.
      await repository.endWrite(written && !written.listingStale ? written.record : undefined)
    }
    size = written.size
    references.push({ label: `restic snapshot (commit) in "${repository.name}"`, id: written.commitId })
    const holder = written.record.sources.at(-1)?.name
    run.log('info', `committed ${name} to restic "${repository.name}" (tagged on snapshot ${written.commitId.slice(0, 8)} of source "${holder}")`)
  }
  // restic checks every blob by its hash; the run's tar has no one checksum of its own: no sha256, the commit's id instead.
  return { name, size, partsCount: 1, references }
}

/**
 * `check-config`'s lines: each restic binary the entries use, its version and what a newer one would add
 * (or why it cannot run), then what each repository answers (checked side by side, each within its time limit).
 */
export async function describeRestic(entries: readonly ResticStorageConfig[], dataDir: string): Promise<RepositoryNote[]> {
  const notes: RepositoryNote[] = []
  const runnable = new Set<string>()
  for (const binary of new Set(entries.map((entry) => entry.binary ?? 'restic'))) {
    try {
      notes.push({ text: `restic: ${describeVersion(await resticVersion(binary))}` })
      runnable.add(binary)
    } catch (err) {
      notes.push({ text: `restic: ${binary}: ${(err as Error).message}`, problem: true })
    }
  }
  const checked = entries.filter((entry) => runnable.has(entry.binary ?? 'restic'))
  return [...notes, ...(await Promise.all(checked.map((entry) => checkResticRepository(entry, dataDir))))]
}
