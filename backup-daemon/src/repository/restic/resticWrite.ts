/**
 * @module repository/restic/resticWrite
 * One run into one restic repository: per source one snapshot (a folder source's folder as a path, so an
 * unchanged file costs a stat; any other source's entries as an uncompressed tar through restic's stdin
 * under the stable name `<source name>.tar`, so unchanged dump content deduplicates), then the commit: the
 * last source's snapshot tagged with the run's sizes (`resticRuns.ts`). Progress comes from restic's
 * `--json` status lines.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { createArchive } from '../../archive/createArchive.js'
import type { Source, SourceTree } from '../../sources/types.js'
import type { WriteRun } from '../types.js'
import { excludedPaths, writeExcludeFile } from './excludeFile.js'
import { restic, resticJson, type ResticTarget } from './resticProcess.js'
import { replayableStdin } from './replayableStdin.js'
import { commitTags, runTags, runTime, sourcesTag, tagArgs, type ResticRunRecord, type ResticSnapshot, type RunIdentity, type RunSource } from './resticRuns.js'
import { removeOwnDeadLocks } from './resticLocks.js'
import { isLocked, isMissingSnapshot, resticLocked } from './resticSession.js'
import { tarEnd, tarSizeOfTree } from './resticTar.js'
import { supports, type ResticVersion } from './resticVersion.js'

export interface ResticWriteTarget {
  target: ResticTarget
  identity: RunIdentity
  version: ResticVersion
  /** The storage entry's name (log lines). */
  name: string
  /** The job's newest committed run: its folder snapshots are the parents of this run's. */
  previous?: ResticRunRecord
}

/** restic's `backup --json` summary (the fields used). */
interface BackupSummary {
  snapshot_id: string
  files_new: number
  files_changed: number
  dirs_new: number
  dirs_changed: number
  data_added: number
  /** New data chunks (blobs) stored: restic's content-defined chunks, 512 KiB to 8 MiB, about 1 MiB on average. */
  data_blobs?: number
  total_files_processed: number
  total_bytes_processed: number
}

const mib = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MiB`

/** What a committed run is: its tar's size and the id of the snapshot that holds its commit (the last source's). */
export interface ResticWritten {
  size: number
  commitId: string
  /** The run as a listing would give it (the daemon's listing cache takes it). */
  record: ResticRunRecord
  /** The listing the run started from named a snapshot no longer there: it is not to be kept. */
  listingStale: boolean
}

/** Writes the run's sources and commits it. */
export async function writeResticRun(into: ResticWriteTarget, run: WriteRun, name: string, sources: Source[]): Promise<ResticWritten> {
  const { signal, log } = run
  const tags = [...runTags(into.identity, name), sourcesTag(sources.length)]
  const retry = supports(into.version, 'retryLock') ? ['--retry-lock', '5m'] : []
  const compression = into.target.compression ? ['--compression', into.target.compression] : []
  const common = ['backup', '--json', '--host', hostname(), ...compression]
  const written: RunSource[] = []
  // What restic says it added to the repository (`data_added`): this storage's bytes written.
  const added = run.progress.writtenTo([into.name])
  let size = tarEnd
  const scratch = await mkdtemp(join(tmpdir(), 'backup-daemon-restic-'))
  let listingStale = false
  try {
    // Folders first (mirrors synced), then the backups.
    const trees: (SourceTree | undefined)[] = []
    for (const source of sources) trees.push(await source.tree?.(signal))
    for (const [index, source] of sources.entries()) {
      const tree = trees[index]
      let summary: BackupSummary
      if (tree) {
        run.progress.phase('archiving')
        const excludeArgs: string[] = []
        if (tree.excluded) {
          const file = join(scratch, `${source.name}.exclude`)
          const { written: listed, unlisted } = await writeExcludeFile(file, await excludedPaths(tree.path, tree.excluded, signal))
          if (listed) excludeArgs.push('--exclude-file', file)
          for (const path of unlisted)
            log('warn', `source "${source.name}": ${JSON.stringify(path)} matches an exclude but restic cannot be told so; it is backed up`)
        }
        log('info', `restic "${into.name}": backing up source "${source.name}" (${source.type}) from ${tree.path}`)
        // The previous run's snapshot of this folder as the parent, named (restic 0.14 picks by host and paths only).
        let parent = into.previous?.sources.find((s) => s.name === source.name && s.form === 'tree' && s.root === tree.path)
        const args = (parentArgs: string[]) => [...common, ...parentArgs, ...tagArgs([...tags, `source=${source.name}`]), ...excludeArgs, tree.path]
        try {
          summary = await backup(into, args(parent ? ['--parent', parent.id] : []), run, { folder: source.name })
        } catch (err) {
          if (!parent || !isMissingSnapshot(err)) throw err
          // Removed by hand with plain restic since the daemon last listed (its kept listing does not know): restic
          // picks a parent itself, the size is counted, and the run's listing is not kept (the next one lists).
          log(
            'warn',
            `restic "${into.name}": the previous run's snapshot ${parent.id.slice(0, 8)} of source "${source.name}" is no longer in the repository (removed by hand?); backing up without it`,
          )
          listingStale = true
          parent = undefined
          summary = await backup(into, args([]), run, { folder: source.name })
        }
        const stored: RunSource = { name: source.name, id: summary.snapshot_id, form: 'tree', root: tree.path }
        // Nothing new or changed against the parent: the same entries, so the same tar size (one restic command less).
        // restic also stores the folders above the path (`/srv`, `/srv/media`), whose times change with their
        // other contents: changed, they count in dirs_changed; a change below the path changes the folder itself too.
        const above = tree.path.split('/').filter(Boolean).length - 1
        const known = parent?.size
        const unchanged = known !== undefined && summary.files_new + summary.files_changed + summary.dirs_new === 0 && summary.dirs_changed <= above
        stored.size = unchanged ? known : await tarSizeOfTree(into.target, stored, signal)
        size += stored.size!
        written.push(stored)
      } else {
        run.progress.phase('dumping')
        log('info', `restic "${into.name}": backing up source "${source.name}" (${source.type}) as ${source.name}.tar`)
        const tar = createArchive([source], {
          compression: 'tar',
          signal,
          onFileChanged: (file, announced, read) =>
            log('warn', `${file} changed while read (${announced} bytes announced, ${read} read); the copy is not what is on disk now`),
        })
        const args = [...common, ...retry, '--stdin', '--stdin-filename', `${source.name}.tar`, ...tagArgs([...tags, `source=${source.name}`, 'dump'])]
        summary = await backup(into, args, run, { stdin: tar })
        const dumped = summary.total_bytes_processed - tarEnd
        size += dumped
        written.push({ name: source.name, id: summary.snapshot_id, form: 'dump', root: `/${source.name}.tar`, size: dumped })
      }
      added.bytesWritten += summary.data_added
      log(
        'info',
        `restic "${into.name}": source "${source.name}": ${mib(summary.total_bytes_processed)} read, ${mib(summary.data_added)} added to the repository (${summary.data_blobs ?? '?'} new chunk(s))`,
      )
    }
    run.progress.phase('uploading')
    const commit = await commitRun(into, name, written, signal)
    const listedRun: ResticRunRecord = {
      name,
      createdAt: runTime(name) ?? new Date(),
      commit,
      size,
      sources: written,
      ids: written.map((s) => s.id),
    }
    return { size, commitId: commit.id, record: listedRun, listingStale }
  } finally {
    await rm(scratch, { recursive: true, force: true })
  }
}

/**
 * The commit: `restic tag` adds the run's sizes to the last source's snapshot, then the tagged copy's id is
 * asked for (restic saves a copy under a new id and removes the original; 0.14 prints neither). Until the copy
 * is saved the run is a leftover; a kill after it leaves at most the original as a stray (`groupRuns`).
 * `tag` takes the repository's exclusive lock (it removes a file, which restic allows no one beside another
 * process's lock; restic 0.17 refuses `--no-lock` for it), so it waits for other jobs' backups into the same
 * repository as retention's `forget` does. A lock this host's killed restic left would hold it: such locks are
 * removed when the first attempt finds the repository locked (not before: `list locks` is one more command).
 */
async function commitRun(into: ResticWriteTarget, name: string, written: RunSource[], signal: AbortSignal): Promise<ResticSnapshot> {
  const last = written.at(-1)
  if (!last) throw new Error(`restic "${into.name}": a run with no source has nothing to commit`)
  const added = commitTags(tarEnd, written)
  const tag = ['tag', ...added.flatMap((value) => ['--add', value]), last.id]
  try {
    await restic(into.target, tag, { signal })
  } catch (err) {
    if (!isLocked(err)) throw err
    await removeOwnDeadLocks(into.target, signal)
    await resticLocked(into.target, tag, { signal }, into.version)
  }
  const filter = ['--tag', `run=${name},source=${last.name},commit`]
  const [tagged] = (await resticJson<ResticSnapshot[] | null>(into.target, ['snapshots', '--no-lock', ...filter], { signal })) ?? []
  if (!tagged)
    throw new Error(`restic "${into.name}": the commit tags on snapshot ${last.id.slice(0, 8)} of source "${last.name}" were not found after restic tag`)
  last.id = tagged.id
  return tagged
}

/**
 * `restic backup --json` with status lines into the run's progress; resolves with the summary. A folder's
 * files and bytes are read by restic, so they are reported as the run's reads too (`folderRead`, counted
 * once with what another storage's writer read of it); a dump's were counted as the daemon read its source.
 * What was written is restic's `data_added`, taken from the summary by the caller.
 */
async function backup(into: ResticWriteTarget, args: string[], run: WriteRun, input: { folder: string } | { stdin: Readable }): Promise<BackupSummary> {
  const stdin = 'stdin' in input ? input.stdin : undefined
  const folder = 'folder' in input ? input.folder : undefined
  let summary: BackupSummary | undefined
  let counted = 0
  let filesCounted = 0
  const count = (files: number, bytes: number) => {
    if (folder !== undefined && (bytes > counted || files > filesCounted))
      run.progress.folderRead(folder, into.name, Math.max(0, files - filesCounted), Math.max(0, bytes - counted))
    counted = Math.max(counted, bytes)
    filesCounted = Math.max(filesCounted, files)
  }
  const onLine = (line: string) => {
    if (!line.startsWith('{')) return
    let message: { message_type?: string; bytes_done?: number; files_done?: number } & Partial<BackupSummary>
    try {
      message = JSON.parse(line) as typeof message
    } catch {
      return
    }
    if (message.message_type === 'status' && typeof message.bytes_done === 'number') count(message.files_done ?? filesCounted, message.bytes_done)
    else if (message.message_type === 'summary') summary = message as BackupSummary
  }
  if (!stdin) await resticLocked(into.target, args, { signal: run.signal, onLine }, into.version)
  else if (supports(into.version, 'retryLock')) await restic(into.target, args, { signal: run.signal, onLine, stdin })
  else {
    // restic < 0.16 refuses at once when another process holds the lock: the same bytes go to a new attempt.
    const replayable = replayableStdin(stdin)
    await resticLocked(into.target, args, { signal: run.signal, onLine, stdin: replayable.attempt, retryIf: () => replayable.replayable }, into.version)
  }
  if (!summary?.snapshot_id) throw new Error(`restic "${into.name}": backup printed no summary`)
  // Status lines come every so often: the last files and bytes are counted from the summary.
  count(summary.total_files_processed ?? filesCounted, summary.total_bytes_processed)
  return summary
}
