/**
 * @module repository/restic/listingCache
 * The job's runs in one restic repository as this daemon last knew them, kept in a file under the data
 * folder between runs (and between processes: `backup-daemon run` is a new process each time). Every
 * restic command derives the repository key (~0.3 s of CPU), and an unchanged run is otherwise three of
 * them: the listing, the backup, the commit. Only this daemon writes snapshots tagged with its id, so
 * what it wrote last is what a listing would find, as long as:
 * - a write or forget removes the file before it starts (a run killed half-way leaves no file: the next
 *   run lists, and finds the leftovers), and writes it again only once done;
 * - two writers of the same job at once (the daemon and a `run` on the same data folder) write none: each
 *   leaves a marker `<file>.<pid>.pending` while it works, and the file is written only by a writer that
 *   finds no other live marker.
 * Another daemon's snapshots carry another id and are never listed here. Snapshots removed by hand with
 * plain restic are seen at the next listing after a write that found its listing stale (its parent snapshot
 * gone: `resticWrite.ts` keeps no listing then) or failed (a failed write removes it).
 */
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import type { ResticRunRecord } from './resticRuns.js'
import { processAlive } from '../../sources/support/processAlive.js'

export interface ListingCache {
  /** The runs as last written; undefined when unknown (never listed, or a write in progress or killed). */
  read(): Promise<ResticRunRecord[] | undefined>
  /** Before a write or forget: the file goes, this process's marker comes. */
  begin(): Promise<void>
  /** After a successful write or forget: the runs now, unless another writer was at work meanwhile. */
  store(runs: ResticRunRecord[]): Promise<void>
  /** After a listing with no file: the runs listed, unless a writer came or went meanwhile (its file or marker is there). */
  seed(runs: ResticRunRecord[]): Promise<void>
  /** After a failed write: the marker goes, the file stays absent (the next run lists). */
  abandon(): Promise<void>
  /** Found stale (a listed run's snapshot is gone): the file goes, the next listing asks restic. */
  drop(): Promise<void>
}

interface StoredRun extends Omit<ResticRunRecord, 'createdAt'> {
  createdAt: string
}

let writes = 0

export function listingCache(file: string): ListingCache {
  const marker = `${file}.${process.pid}.pending`
  const others = async () => {
    const prefix = `${basename(file)}.`
    const names = await readdir(dirname(file)).catch(() => [] as string[])
    let seen = 0
    for (const name of names) {
      const pid = Number(/^(\d+)\.pending$/.exec(name.slice(prefix.length))?.[1])
      if (!name.startsWith(prefix) || !Number.isInteger(pid) || pid === process.pid) continue
      seen++
      // A killed writer's marker: it counts this once (its leftovers may be newer than a listing), then goes.
      if (!processAlive(pid)) await rm(join(dirname(file), name), { force: true })
    }
    return seen
  }
  const write = async (runs: ResticRunRecord[]) => {
    await mkdir(dirname(file), { recursive: true, mode: 0o700 })
    // One name per write, not per process: two listings of one process (a verify and a restore at once)
    // seed together, and a shared name let the second rename find the first one's file gone.
    const temporary = `${file}.${process.pid}.${++writes}.tmp`
    try {
      // Run names, source paths and sizes: the owner's only, whatever the umask (issue 39 #10).
      await writeFile(temporary, JSON.stringify(runs), { mode: 0o600 })
      await rename(temporary, file)
    } finally {
      await rm(temporary, { force: true })
    }
  }
  const exists = () =>
    readFile(file).then(
      () => true,
      () => false,
    )
  return {
    async read() {
      try {
        const stored = JSON.parse(await readFile(file, 'utf8')) as StoredRun[]
        return stored.map((run) => ({ ...run, createdAt: new Date(run.createdAt) }))
      } catch {
        return undefined
      }
    },
    async begin() {
      await mkdir(dirname(file), { recursive: true, mode: 0o700 })
      await writeFile(marker, '', { mode: 0o600 })
      await rm(file, { force: true })
    },
    async store(runs) {
      try {
        if ((await others()) === 0) await write(runs)
      } catch {
        /* the run is in the repository already: without the file, the next command lists */
      } finally {
        await rm(marker, { force: true })
      }
    },
    async seed(runs) {
      // The listing is already in hand: a file that cannot be written costs the next command a listing, never this one.
      try {
        if ((await others()) === 0 && !(await exists())) await write(runs)
      } catch {
        /* the next listing asks restic */
      }
    },
    abandon: () => rm(marker, { force: true }),
    drop: () => rm(file, { force: true }),
  }
}
