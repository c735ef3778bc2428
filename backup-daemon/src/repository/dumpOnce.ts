/**
 * @module repository/dumpOnce
 * A run whose writers each read the sources (archives and a restic repository; several restic
 * repositories, each backing up from new sources) must not ask a database for two dumps: two dumps
 * taken minutes apart differ, so the storages would hold different data for one run, and the database
 * pays twice. So before any writer starts, every source without a folder (`Source.tree`: database dumps,
 * remote sources without a mirror) is read once and its entries spooled to files under the daemon's data
 * folder; every writer then reads those files. A source with a folder (a local folder, a synced mirror)
 * is read by each writer from that folder (a walk, or restic's stat per file): cheap. Its tree is handed
 * on as found (restic does not sync it again); the archive reads the source's entries, so a mirror is
 * listed again then, but finds nothing more to download.
 */
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import type { Source, SourceEntry, SourceTree } from '../sources/types.js'
import type { SourceRecord } from '../tar/snapshotRecord.js'
import type { WriteRun } from './types.js'
import { processAlive } from '../sources/support/processAlive.js'

export interface DumpedOnce {
  /** The run's sources for one writer: the spooled copies of the dumps, new objects for the folders. */
  createSources(): Source[]
  /** Removes the spooled files. */
  cleanup(): Promise<void>
}

/** A spooled entry: its metadata, and for a file where its bytes are. */
type SpooledEntry = Omit<SourceEntry, 'open' | 'data'> & { file?: string }

/**
 * Reads every source without a folder once into `<spoolRoot>/<job>-<pid>-…/` and returns sources that
 * replay them. Leftovers of this job from a process that is gone (a killed run) are removed first.
 */
export async function dumpOnce(run: WriteRun, spoolRoot: string): Promise<DumpedOnce> {
  await mkdir(spoolRoot, { recursive: true })
  await removeDeadSpools(spoolRoot, run.job.name)
  const dir = await mkdtemp(join(spoolRoot, `${run.job.name}-${process.pid}-`))
  const cleanup = () => rm(dir, { recursive: true, force: true })
  try {
    const first = run.createSources()
    const replays: (Source | undefined)[] = []
    const trees: (SourceTree | undefined)[] = []
    for (const [index, source] of first.entries()) {
      const tree = await source.tree?.(run.signal)
      if (tree) trees[index] = tree
      else {
        run.progress.phase('dumping')
        run.log('info', `source "${source.name}" (${source.type}): read once for every storage of the job`)
        replays[index] = await spool(source, join(dir, String(index)), run.signal)
      }
    }
    const createSources = () => run.createSources().map((fresh, index) => replays[index] ?? withTree(fresh, trees[index]))
    return { createSources, cleanup }
  } catch (err) {
    await cleanup()
    throw err
  }
}

/** The fresh source, answering `tree` with the folder found (and synced) once. */
function withTree(fresh: Source, tree: SourceTree | undefined): Source {
  if (!tree) return fresh
  return {
    type: fresh.type,
    name: fresh.name,
    batches: (signal) => fresh.batches(signal),
    ...(fresh.tarChunks && { tarChunks: (signal, hooks) => fresh.tarChunks!(signal, hooks) }),
    ...(fresh.recorded && { recorded: () => fresh.recorded!() }),
    tree: () => Promise.resolve(tree),
  }
}

/** Reads `source` whole into `dir` (one file per file entry) and returns a source that hands the same entries out again. */
async function spool(source: Source, dir: string, signal: AbortSignal): Promise<Source> {
  await mkdir(dir, { recursive: true })
  const entries: SpooledEntry[] = []
  for await (const batch of source.batches(signal)) {
    for (const entry of batch) {
      const { open, data, ...meta } = entry
      if (entry.type !== 'file') {
        entries.push(meta)
        continue
      }
      const file = join(dir, String(entries.length))
      if (data) await writeFile(file, data, { signal })
      else if (open) await pipeline(open(signal), createWriteStream(file), { signal })
      else await writeFile(file, '')
      // The bytes as read: a file that changed while read is replayed as copied, the same for every storage.
      entries.push({ ...meta, size: (await stat(file)).size, file })
    }
  }
  const recorded: SourceRecord | undefined = source.recorded?.()
  return {
    type: source.type,
    name: source.name,
    async *batches(batchSignal) {
      for (const { file, ...meta } of entries) {
        batchSignal.throwIfAborted()
        yield [file ? { ...meta, open: (s: AbortSignal) => createReadStream(file, { signal: s }) } : meta]
      }
    },
    recorded: () => recorded,
  }
}

/** Removes `<job>-<pid>-…` spool folders whose process is gone. */
async function removeDeadSpools(spoolRoot: string, job: string): Promise<void> {
  for (const name of await readdir(spoolRoot)) {
    const pid = name.startsWith(`${job}-`) ? Number(/^(\d+)-/.exec(name.slice(job.length + 1))?.[1]) : NaN
    if (!Number.isInteger(pid) || processAlive(pid)) continue
    await rm(join(spoolRoot, name), { recursive: true, force: true })
  }
}
