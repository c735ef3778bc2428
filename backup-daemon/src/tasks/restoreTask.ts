/**
 * @module tasks/restoreTask
 * The work of a restore task, whoever asked (the API and the UI, the CLI): its target checked and held
 * before anything is read (`prepareRestore`: a bad request writes nothing), then, for the copy the task
 * chose, the snapshot's tar read and put back:
 * - files into a folder (below `restore.roots` for the API; any folder for the operator's CLI), unpacked
 *   next to it and moved into place at the end (`restoreFiles`), journaled so a kill is put right at the
 *   next start; with `intoLibrary`, the job's video library sources then uploaded from it;
 * - one database source into a database of `restore.databases` (`restoreDatabase`), or the operator's
 *   database sources back where they read from (`restoreDatabases`).
 * Every failure says what the target holds afterwards (nothing changed, or what changed and what is where).
 */
import { join } from 'node:path'
import type { DaemonConfig, JobConfig, SourceConfig } from '../config/types.js'
import { restoreDatabases, restoreOf } from '../restore/restoreDatabases.js'
import type { RunRecord } from '../runs/history.js'
import { sourceFactories } from '../sources/all.js'
import type { Located } from './verifyCopies.js'
import { resolveOperatorFolder, resolveRestoreFolder, type RestoreFolder } from './resolveRestoreFolder.js'
import { restoreDatabase, retargetSource } from './restoreDatabase.js'
import { restoreFiles, UnreadableCopyError } from './restoreFiles.js'
import { directRestoreOf } from './directRestore.js'
import { beginRestoreJournal } from './restoreJournal.js'
import type { RestoreTargetLocks } from './restoreTargetLocks.js'
import type { TaskReads } from './taskReads.js'
import type { TaskContext, TaskOutcome } from './TaskRunner.js'
import { TaskRefusedError } from './TaskRefusedError.js'
import type { OperatorRestoreTarget, RestoreTarget } from './TaskView.js'
import { guidMapName, plannedUpload, uploadIntoLibrary } from './uploadIntoLibrary.js'

export interface RestoreRequest {
  config: DaemonConfig
  job: JobConfig
  snapshot: string
  trigger: RunRecord['trigger']
  locks: RestoreTargetLocks
}

/** A restore whose target is checked and held: what the task shows, reads and does. */
export interface PreparedRestore {
  /** The target in words (the task's `target`). */
  label: string
  /** The only sources the restore reads (a repository that stores each source apart reads just those); undefined: all. */
  sources?: string[]
  run(copy: Located, reads: TaskReads, context: TaskContext): Promise<TaskOutcome>
  /**
   * The run's read is the check: files are unpacked into a temporary folder and moved into place only
   * once the whole snapshot was read and checked as it came (every part's sha256; restic checks every
   * blob's hash), so no verify pass reads it first; a copy whose bytes fail (`UnreadableCopyError`)
   * leaves the target as it was and the next copy is tried. A database is loaded as it is read: it is
   * verified first.
   */
  checksAsItReads: boolean
  /** Lets the target go (the task ended, or was refused before it started). */
  release(): void
}

export async function prepareRestore(request: RestoreRequest, target: RestoreTarget | OperatorRestoreTarget): Promise<PreparedRestore> {
  if (target.kind === 'files' || target.kind === 'folder') return prepareFiles(request, target)
  if (target.kind === 'database') return prepareDatabase(request, target)
  return prepareInPlace(request, target)
}

async function prepareFiles(
  request: RestoreRequest,
  target: Extract<RestoreTarget | OperatorRestoreTarget, { kind: 'files' | 'folder' }>,
): Promise<PreparedRestore> {
  const { config, job, snapshot, trigger, locks } = request
  const upload = plannedUpload(job, target)
  const folder: RestoreFolder =
    target.kind === 'files' ? await resolveRestoreFolder(target.path, config.restore?.roots ?? []) : await resolveOperatorFolder(target.path)
  let unlock: () => void
  try {
    unlock = locks.claim(folder.path, job.name)
  } catch (err) {
    folder.release()
    throw err
  }
  const overwrite = target.overwrite ?? false
  const mapFile = (target.kind === 'folder' && target.guidMap) || join(folder.path, guidMapName)
  return {
    label: folder.path,
    checksAsItReads: true,
    release: () => {
      folder.release()
      unlock()
    },
    async run(copy, reads, context) {
      // Opening reads its first bytes (an encrypted snapshot's decrypter reads ahead): a part that fails there is
      // an unreadable copy as much as one that fails later, and nothing has been written yet.
      const unreadable = (err: Error) => {
        throw new UnreadableCopyError(`${copy.snapshot.explainReadError(err).message}; nothing was restored (${folder.path} is as it was)`, { cause: err })
      }
      // The repository's own restorer where it has one and the snapshot's listing allows it (restic's), else the tar.
      const direct = await directRestoreOf(copy.snapshot, reads.options(context), context).catch(unreadable)
      const archive = direct ?? (await copy.snapshot.openTar(reads.options(context)).catch(unreadable))
      const journal = beginRestoreJournal(config.dataDir, {
        taskId: context.id,
        job: job.name,
        snapshot,
        trigger,
        startedAt: new Date().toISOString(),
        target: folder.path,
        root: folder.root,
        components: folder.components,
        name: folder.name,
      })
      const result = await restoreFiles(archive, folder, {
        overwrite,
        signal: context.signal,
        onEntry: (entry) => context.meter.file(entry),
        journal,
        explain: (err) => copy.snapshot.explainReadError(err),
      }).finally(() => journal.end())
      if (result.setIdCleared)
        context.log('warn', `${result.setIdCleared} entr(y/ies) had set-user-ID or set-group-ID bits, not restored (a snapshot is untrusted input)`)
      if (result.skipped.length)
        context.log('warn', `not restored (devices, FIFOs): ${result.skipped.slice(0, 10).join(', ')}${result.skipped.length > 10 ? ', …' : ''}`)
      let summary = `restored ${result.files} file(s), ${result.directories} folder(s), ${result.links} link(s), ${result.bytes} bytes into ${folder.path}`
      if (upload) {
        context.log('info', summary)
        summary += `; ${await uploadIntoLibrary(upload, folder.path, context, mapFile)}`
      }
      return { summary, bytesWritten: result.bytes }
    },
  }
}

async function prepareDatabase(request: RestoreRequest, target: Extract<RestoreTarget, { kind: 'database' }>): Promise<PreparedRestore> {
  const { config, job, locks } = request
  const source = job.sources.find((s) => s.name === target.source)
  if (!source) throw new TaskRefusedError(400, `job "${job.name}" has no source "${target.source}"`)
  if (!restoreOf(source)) {
    throw new TaskRefusedError(400, `source "${source.name}" (${source.type}) is not a database source that can be restored into another database`)
  }
  const databases = config.restore?.databases ?? {}
  const configured = databases[target.database]
  if (!configured) {
    const known = Object.keys(databases)
    throw new TaskRefusedError(400, `no database "${target.database}" in restore.databases (configured: ${known.length ? known.join(', ') : 'none'})`)
  }
  // Before the claim: a refused kind must not leave the target locked.
  const { source: retargeted, where, failureNote } = retargetSource(source, configured, target.database)
  const release = locks.claim(`database:${target.database}`, job.name)
  const overwrite = target.overwrite ?? false
  return {
    label: `database ${target.database}`,
    checksAsItReads: false,
    sources: [source.name],
    release,
    async run(copy, reads, context) {
      context.meter.currentSource = source.name
      const archive = await copy.snapshot.openTar({ ...reads.options(context), sources: [source.name] })
      // Once the source is restored (committed), a failure or cancel while the rest of the archive is read changes nothing.
      let restored = false
      const log = (line: string) => {
        if (line.startsWith('restored source ')) restored = true
        context.log('info', line)
      }
      await restoreDatabase(archive, retargeted, job.sources, { overwrite, signal: context.signal, log }).catch((err: Error) => {
        if (!restored) throw new Error(`${copy.snapshot.explainReadError(err).message}${failureNote}`, { cause: err })
      })
      return { summary: `restored source "${source.name}" into ${configured.type} database ${where} (restore.databases.${target.database})` }
    },
  }
}

/** The database kinds of the registry in words: "sqlite, …, mariadb and redis (with a path)". */
export function databaseKinds(): string {
  const kinds = sourceFactories.flatMap(({ type, restore }) => (restore ? [restore.restorableWhen ? `${type} (${restore.restorableWhen})` : type] : []))
  return kinds.length > 1 ? `${kinds.slice(0, -1).join(', ')} and ${kinds.at(-1)}` : kinds.join('')
}

async function prepareInPlace(request: RestoreRequest, target: Extract<OperatorRestoreTarget, { kind: 'in-place' }>): Promise<PreparedRestore> {
  const { job, locks } = request
  const sources: SourceConfig[] = job.sources.filter((s) => restoreOf(s) && (target.sources.length === 0 || target.sources.includes(s.name)))
  if (sources.length === 0) {
    const named = target.sources.length ? ` named ${target.sources.join(', ')} (--source)` : ''
    throw new TaskRefusedError(
      400,
      `job "${job.name}" has no database source${named}; --into-database restores ${databaseKinds()} sources, use --to DIR for files`,
    )
  }
  const unlocks: (() => void)[] = []
  try {
    for (const source of sources) unlocks.push(locks.claim(`source:${job.name}/${source.name}`, job.name))
  } catch (err) {
    for (const unlock of unlocks) unlock()
    throw err
  }
  const overwrite = target.overwrite ?? false
  return {
    label: `database source(s) ${sources.map((s) => s.name).join(', ')}`,
    checksAsItReads: false,
    sources: sources.map((s) => s.name),
    release: () => {
      for (const unlock of unlocks) unlock()
    },
    async run(copy, reads, context) {
      const archive = await copy.snapshot.openTar({ ...reads.options(context), sources: sources.map((s) => s.name) })
      const say = (line: string) => context.log('info', line)
      const restored: string[] = []
      try {
        await restoreDatabases(archive, sources, { overwrite, signal: context.signal, log: say, onRestored: (name) => restored.push(name) }, job.sources)
      } catch (err) {
        const changed = restored.length ? `; already restored before the failure: ${restored.join(', ')}` : '; nothing was restored'
        throw new Error(`${copy.snapshot.explainReadError(err as Error).message}${changed}`, { cause: err })
      }
      return { summary: `restored ${restored.length} database source(s): ${restored.join(', ')}` }
    },
  }
}
