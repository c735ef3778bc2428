/**
 * @module repository/restic/resticRuns
 * How the daemon's runs are written down in a restic repository, and read back. One run is one restic
 * snapshot per source, all tagged:
 * - `job=<job>`, `daemon=<daemon id>`, `run=<run name>` and `sources=<count of the run's sources>`;
 * - `source=<source name>`, and `dump` when it holds the source's entries as one tar (`/<source name>.tar`,
 *   a database dump) rather than the source's folder;
 * - on the last source's snapshot, once every source is written (`restic tag`): `commit`, `size=<bytes of
 *   the run's tar>` and `part=<source>=<bytes>` per source (a source unchanged since the previous run takes
 *   its recorded size).
 * So `restic snapshots` shows one row per source per run, and `restic restore latest` restores data. A run
 * is listed only with its commit and every source it names: what a killed run left is a leftover. The
 * old layout (before issue 42) had a separate commit snapshot (`/.backup-daemon-run.json`, no `source=`):
 * it is read the same way.
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
  /**
   * Snapshots of a committed run that are not part of it: the untagged snapshot a `restic tag` killed half-way
   * left beside its tagged copy (it saves the copy, then removes the original). Removed as leftovers.
   */
  strays?: string[]
}

/** The old layout's commit snapshot's file (`--stdin-filename`): read, no longer written. */
export const commitFilename = '.backup-daemon-run.json'

/** Each source snapshot's count of the run's sources: a reader sees how many rows make the run. */
export const sourcesTag = (count: number) => `sources=${count}`

/** The tags `restic tag` adds to the last source's snapshot: `commit`, the run's tar size and each source's part of it. */
export function commitTags(tarEnd: number, parts: readonly { name: string; size?: number }[]): string[] {
  const size = parts.reduce((sum, part) => sum + (part.size ?? 0), tarEnd)
  return ['commit', `size=${size}`, ...parts.map((s) => `part=${s.name}=${s.size}`)]
}

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
    const isCommit = snapshot.tags?.includes('commit') ?? false
    if (isCommit) {
      run.commit = snapshot
      run.size = Number(tagValue(snapshot.tags, 'size') ?? 0)
    }
    const sourceName = tagValue(snapshot.tags, 'source')
    if (!sourceName || !snapshot.paths[0]) continue
    const source: RunSource = { name: sourceName, id: snapshot.id, form: snapshot.tags?.includes('dump') ? 'dump' : 'tree', root: snapshot.paths[0] }
    const twin = run.sources.findIndex((s) => s.name === sourceName)
    if (twin < 0) run.sources.push(source)
    else if (isCommit) {
      // The tagged copy wins over the original a killed `restic tag` did not remove (they share their time).
      run.strays = [...(run.strays ?? []), run.sources[twin]!.id]
      run.sources[twin] = source
    } else run.strays = [...(run.strays ?? []), snapshot.id]
  }
  for (const run of runs.values()) {
    if (run.commit && !complete(run, run.commit)) {
      run.commit = undefined
      run.size = 0
    }
    if (!run.commit) delete run.strays
  }
  return [...runs.values()].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.name.localeCompare(a.name))
}

/**
 * Every part the commit names is there (and each source's size is taken from it), and as many sources as the
 * run's snapshots announce: an old-layout commit started early whose daemon died saved itself on its stdin's
 * end, possibly before a source's snapshot.
 */
function complete(run: ResticRunRecord, commit: ResticSnapshot): boolean {
  let parts = 0
  for (const tag of commit.tags ?? []) {
    const part = /^part=([^=]+)=(\d+)$/.exec(tag)
    if (!part) continue
    const source = run.sources.find((s) => s.name === part[1])
    if (!source) return false
    source.size = Number(part[2])
    parts++
  }
  const announced = tagValue(commit.tags, 'sources')
  return announced === undefined || (Number(announced) === parts && parts === run.sources.length)
}
