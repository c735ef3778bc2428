/**
 * @module repository/restic/resticRuns
 * How the daemon's runs are written down in a restic repository, and read back. One run is one restic
 * snapshot per source plus a tiny commit snapshot, all tagged:
 * - `job=<job>`, `daemon=<daemon id>`, `run=<run name>` on every one;
 * - `source=<source name>` on a source's snapshot, and `dump` when it holds the source's entries as one
 *   tar (`/<source name>.tar`, a database dump) rather than the source's folder;
 * - `commit`, `size=<bytes of the run's tar>` and `part=<source>=<bytes>` per source on the commit
 *   snapshot, written last (a source unchanged since the previous run takes its recorded size).
 * A run is listed only with its commit snapshot: what a killed run left has none and is a leftover.
 */

/** `restic snapshots --json` items (the fields used). */
export interface ResticSnapshot {
  id: string
  time: string
  paths: string[]
  tags?: string[]
}

/** One source's snapshot in a run. */
export interface RunSource {
  name: string
  id: string
  /** `tree`: the folder at `root`; `dump`: the source's entries as the tar file `root` (`/<name>.tar`). */
  form: 'tree' | 'dump'
  root: string
  /** Its bytes in the run's tar, as the commit recorded them (`part=<source>=<bytes>`). */
  size?: number
}

export interface ResticRunRecord {
  name: string
  createdAt: Date
  /** Absent for a run that did not finish (a leftover). */
  commit?: ResticSnapshot
  size: number
  sources: RunSource[]
  /** Every restic snapshot of the run (sources and commit). */
  ids: string[]
}

export const commitFilename = '.backup-daemon-run.json'

/** The run's name: `<job>-<ISO time with - for : and .>`, as archive names without their extension. */
export const runName = (job: string, createdAt: Date) => `${job}-${createdAt.toISOString().replace(/[:.]/g, '-')}`

/** The time a run name holds. */
export function runTime(name: string): Date | undefined {
  const match = /(\d{4}-\d\d-\d\d)T(\d\d)-(\d\d)-(\d\d)-(\d{3})Z$/.exec(name)
  return match ? new Date(`${match[1]}T${match[2]}:${match[3]}:${match[4]}.${match[5]}Z`) : undefined
}

export interface RunIdentity {
  job: string
  daemon: string
}

/** The tags every snapshot of the run carries; `--tag` takes them one by one. */
export const runTags = ({ job, daemon }: RunIdentity, run: string): string[] => [`job=${job}`, `daemon=${daemon}`, `run=${run}`]

/** `--tag a --tag b …`. */
export const tagArgs = (tags: string[]) => tags.flatMap((tag) => ['--tag', tag])

/** The filter that lists this daemon's snapshots of the job (tags in one `--tag` must all match). */
export const listFilter = ({ job, daemon }: RunIdentity) => ['--tag', `job=${job},daemon=${daemon}`]

const tagValue = (tags: string[] | undefined, key: string) => tags?.find((tag) => tag.startsWith(`${key}=`))?.slice(key.length + 1)

/** The job's runs from its snapshots, newest first; runs without a commit are included (`commit` undefined). */
export function groupRuns(snapshots: ResticSnapshot[]): ResticRunRecord[] {
  const runs = new Map<string, ResticRunRecord>()
  const ordered = [...snapshots].sort((a, b) => a.time.localeCompare(b.time))
  for (const snapshot of ordered) {
    const name = tagValue(snapshot.tags, 'run')
    const createdAt = name && runTime(name)
    if (!name || !createdAt) continue
    let run = runs.get(name)
    if (!run) runs.set(name, (run = { name, createdAt, size: 0, sources: [], ids: [] }))
    run.ids.push(snapshot.id)
    if (snapshot.tags?.includes('commit')) {
      run.commit = snapshot
      run.size = Number(tagValue(snapshot.tags, 'size') ?? 0)
      continue
    }
    const source = tagValue(snapshot.tags, 'source')
    if (source && snapshot.paths[0]) {
      run.sources.push({ name: source, id: snapshot.id, form: snapshot.tags?.includes('dump') ? 'dump' : 'tree', root: snapshot.paths[0] })
    }
  }
  for (const run of runs.values()) {
    if (!run.commit) continue
    // Every part the commit names must be there: a commit started early (`earlyCommit.ts`) whose daemon died
    // saves itself on its stdin's end, possibly before a source's snapshot; such a run is a leftover.
    for (const tag of run.commit.tags ?? []) {
      const part = /^part=([^=]+)=(\d+)$/.exec(tag)
      if (!part) continue
      const source = run.sources.find((s) => s.name === part[1])
      if (source) source.size = Number(part[2])
      else run.commit = undefined
      if (!run.commit) break
    }
    if (!run.commit) run.size = 0
  }
  return [...runs.values()].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.name.localeCompare(a.name))
}
