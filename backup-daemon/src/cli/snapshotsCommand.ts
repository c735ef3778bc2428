/**
 * @module cli/snapshotsCommand
 * `backup-daemon snapshots JOB --config FILE [--storage NAME] [--json]`: the job's committed snapshots
 * on every storage (or one), newest first, from the code the API's `GET /jobs/{name}/backups` answers
 * with (`JobRepository.list`: one entry per snapshot, the storages holding a copy merged). A table for
 * people; with `--json` one `Snapshot` of the API per line. A storage that cannot be listed is an error
 * naming it (exit 1): a listing that silently leaves one out would hide missing copies.
 */
import type { SnapshotView } from '../engine/types.js'
import { formatBytes } from '../ui/lib/formatBytes.js'
import { openJob, repositoryOf } from './snapshotCommand.js'

export interface SnapshotsArgs {
  file: string
  job: string
  storage?: string
  json: boolean
}

/** `ok`, `no checksum` (the original service's), or `DAMAGED: why`. */
const stateOf = (view: SnapshotView) =>
  view.damaged ? `DAMAGED: ${view.damageReason ?? 'parts do not add up'}` : view.checksummed ? 'checksummed' : 'no checksum'

/** Columns padded to their widest cell; the last column is not padded. */
export function alignTable(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)))
  return rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  ')).join('\n') + '\n'
}

export function snapshotTable(snapshots: SnapshotView[]): string {
  const rows = snapshots.map((s) => [
    s.name,
    s.createdAt.replace('T', ' ').replace(/\.\d+Z$|Z$/, 'Z'),
    formatBytes(s.size),
    String(s.partsCount),
    s.storages.join(','),
    stateOf(s),
  ])
  return alignTable([['NAME', 'CREATED', 'SIZE', 'PARTS', 'STORAGE', 'STATE'], ...rows])
}

export async function snapshotsCommand(args: SnapshotsArgs): Promise<number> {
  const opened = await openJob(args.file, args.job, args.storage, 'snapshots')
  if (typeof opened === 'number') return opened
  const repository = repositoryOf(opened)
  let listed
  try {
    listed = await repository.list()
  } catch (err) {
    // Name the storage(s) that cannot be listed, so the operator knows which one to check.
    const failing: string[] = []
    for (const storage of repository.repositories) await storage.list().catch(() => failing.push(`"${storage.name}"`))
    const which = failing.length ? `storage ${failing.join(', ')}` : 'a storage'
    process.stderr.write(`snapshots: cannot list job "${args.job}" on ${which}: ${(err as Error).message}; check it, or list the others with --storage NAME\n`)
    return 1
  }
  const snapshots = listed.map((snapshot) => snapshot.view)
  if (args.json) {
    for (const snapshot of snapshots) process.stdout.write(`${JSON.stringify(snapshot)}\n`)
    return 0
  }
  if (snapshots.length === 0) {
    process.stdout.write(`no snapshots of job "${args.job}" on ${opened.entries.map((s) => `"${s.name}"`).join(', ')}\n`)
    return 0
  }
  const size = snapshots.reduce((sum, s) => sum + s.size, 0)
  process.stdout.write(snapshotTable(snapshots))
  process.stdout.write(`${snapshots.length} snapshot(s), ${formatBytes(size)}\n`)
  return 0
}
