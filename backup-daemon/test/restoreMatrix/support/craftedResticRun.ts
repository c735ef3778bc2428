/**
 * @module test/restoreMatrix/support/craftedResticRun
 * A daemon's run written into a restic repository by someone with its password, with plain restic, as the
 * daemon wrote one before issue 42 and still reads (`src/repository/restic/resticRuns.ts`, the old layout: one
 * snapshot per source and a commit snapshot, tagged `job=`, `daemon=`, `run=`, `source=`, `dump`, `commit`, `size=`, `part=`): a folder source's
 * snapshot made by `restic backup` of a prepared folder (restic itself cleans names, so a tree can hold a
 * link out but never a `..` or absolute name), a dump source's snapshot by `restic backup --stdin` of any
 * tar (entries absolute, with `..`, through a link, hard links out, a record that lies). The sizes the commit
 * gives are the ones the daemon computes, so its verify reads the run as whole.
 */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { tarSizeOfTree } from '../../../src/repository/restic/resticTar.js'

const run = promisify(execFile)

export interface ResticRepository {
  repository: string
  password: string
}

/** What the daemon's tar writer and tar-stream end an archive with: two zero blocks. */
const tarEnd = 1024

async function restic(repo: ResticRepository, args: string[], stdin?: Buffer): Promise<string> {
  const child = run('restic', args, { env: { ...process.env, RESTIC_REPOSITORY: repo.repository, RESTIC_PASSWORD: repo.password }, maxBuffer: 64 << 20 })
  if (stdin) child.child.stdin!.end(stdin)
  return (await child).stdout
}

export const initRestic = (repo: ResticRepository) => restic(repo, ['init'])

/** The snapshot id `restic backup --json` printed in its summary. */
const snapshotOf = (printed: string) => {
  const summary = printed
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { message_type?: string; snapshot_id?: string })
    .find((line) => line.message_type === 'summary')
  if (!summary?.snapshot_id) throw new Error(`restic backup printed no summary:\n${printed}`)
  return summary.snapshot_id
}

export interface CraftedRun {
  job: string
  /** The id in `<dataDir>/daemon-id` of the daemon that must list the run. */
  daemon: string
  /** Folder sources: each source's name and the prepared folder restic backs up. */
  trees?: { source: string; folder: string }[]
  /** Dump sources: each source's name and the bytes of its tar (ending with the two zero blocks). */
  dumps?: { source: string; tar: Buffer }[]
}

/** Writes `crafted` as the job's newest run (its time 2030-01-01); returns the run's name, as the daemon lists it. */
export async function plantResticRun(repo: ResticRepository, crafted: CraftedRun): Promise<string> {
  const name = `${crafted.job}-${new Date(Date.UTC(2030, 0, 1)).toISOString().replace(/[:.]/g, '-')}`
  const tags = [`job=${crafted.job}`, `daemon=${crafted.daemon}`, `run=${name}`]
  const tagArgs = (more: string[]) => [...tags, ...more].flatMap((tag) => ['--tag', tag])
  const parts: { name: string; id: string; form: 'tree' | 'dump'; root: string; size: number }[] = []
  for (const { source, folder } of crafted.trees ?? []) {
    const id = snapshotOf(await restic(repo, ['backup', '--json', ...tagArgs([`source=${source}`]), folder]))
    const part = { name: source, id, form: 'tree' as const, root: folder }
    parts.push({ ...part, size: await tarSizeOfTree({ repository: repo.repository, password: repo.password }, part) })
  }
  for (const { source, tar } of crafted.dumps ?? []) {
    const printed = await restic(repo, ['backup', '--json', '--stdin', '--stdin-filename', `${source}.tar`, ...tagArgs([`source=${source}`, 'dump'])], tar)
    parts.push({ name: source, id: snapshotOf(printed), form: 'dump', root: `/${source}.tar`, size: tar.length - tarEnd })
  }
  const size = parts.reduce((sum, part) => sum + part.size, tarEnd)
  const commit = Buffer.from(JSON.stringify({ job: crafted.job, run: name, size, sources: parts }))
  const commitTags = tagArgs(['commit', `size=${size}`, ...parts.map((part) => `part=${part.name}=${part.size}`)])
  await restic(repo, ['backup', '--json', '--stdin', '--stdin-filename', '.backup-daemon-run.json', ...commitTags], commit)
  return name
}
