/**
 * @module tasks/createJobTasks
 * Restore and verify of a job's listed snapshots, as the engine offers them to the API: every request is
 * checked before anything runs (job known, snapshot listed, target allowed, nothing else running for the
 * job: neither a task nor a backup) and refused with a `TaskRefusedError` / `SnapshotNotFoundError`;
 * then the work runs in the `TaskRunner`.
 *
 * - verify: every storage copy of the snapshot is checked (`StoredSnapshot.verify`: each part's sha256
 *   against the manifest; without a manifest the archive is read to its end). Fails when one copy is bad.
 * - restore: the first copy that verifies is read (so the total is twice the snapshot's size), then
 *   unpacked into a folder below `restore.roots` (`restoreFiles`) or one database source's dump is
 *   restored into a database of `restore.databases` (`restoreDatabase`); with `intoLibrary`, the job's video
 *   library sources are then uploaded from the folder (`uploadIntoLibrary`).
 * - drill: the newest snapshot of each storage (or the one named) verified, restored into a scratch folder
 *   and compared with the record the backup wrote (`drillTask`).
 */
import type { DaemonConfig, JobConfig } from '../config/types.js'
import type { JobRepository } from '../repository/jobRepository.js'
import type { ReadOptions, SnapshotRepository, StoredSnapshot } from '../repository/types.js'
import { archiveKeys } from '../repository/archiveKeys.js'
import { SnapshotNotFoundError } from '../runs/errors.js'
import type { RunRecord } from '../runs/history.js'
import type { RunListener } from '../runs/RunWatchers.js'
import { restoreOf } from '../restore/restoreDatabases.js'
import { resolveRestoreFolder } from './resolveRestoreFolder.js'
import { restoreDatabase, retargetSource } from './restoreDatabase.js'
import { restoreFiles } from './restoreFiles.js'
import { drillCopies, drilledNames, drillTotalBytes } from './drillTask.js'
import { beginRestoreJournal } from './restoreJournal.js'
import { restoreTargetLocks } from './restoreTargetLocks.js'
import type { TaskContext, TaskRunner } from './TaskRunner.js'
import { TaskRefusedError } from './TaskRefusedError.js'
import type { RestoreTarget, TaskView } from './TaskView.js'
import { plannedUpload, uploadIntoLibrary } from './uploadIntoLibrary.js'

export interface JobTasks {
  verify(job: string, snapshot: string, trigger?: RunRecord['trigger']): Promise<TaskView>
  restore(job: string, snapshot: string, target: RestoreTarget, trigger?: RunRecord['trigger']): Promise<TaskView>
  /** A restore drill of the newest snapshot on every storage of the job, or on `storage` only. */
  drill(job: string, storage?: string, trigger?: RunRecord['trigger']): Promise<TaskView>
  /** The newest task of the job (running or ended); undefined before the first. */
  current(job: string): TaskView | undefined
  /**
   * Follows the newest task live (`TaskRunner.follow`): its progress, then `end` with its history record
   * (at once for an ended task). Undefined when the job has had no task; throws `JobNotFoundError`.
   */
  follow(job: string, listener: RunListener): (() => void) | undefined
  /** 409 `TaskRefusedError` when no task runs. */
  cancel(job: string): TaskView
  busy(job: string): boolean
  whenDone(job: string): Promise<void>
  stop(): Promise<void>
}

export interface JobTasksDeps {
  config: DaemonConfig
  /** The job's config and snapshots; throws `JobNotFoundError`. */
  job(name: string): { config: JobConfig; repository: JobRepository }
  /** Whether the job's backup runs (a task is refused meanwhile: it would read a snapshot being written or pruned). */
  backupRunning(name: string): boolean
  runner: TaskRunner
}

/** One repository's copy of a listed snapshot. */
interface Located {
  repository: SnapshotRepository
  snapshot: StoredSnapshot
}
const sizeOf = (located: Located) => located.snapshot.size

/** How a task reads a copy: the job's keys, the task's cancel, every byte read counted in its progress. */
const readOptions = (jobConfig: JobConfig, context: TaskContext): ReadOptions => ({
  ...archiveKeys(jobConfig),
  signal: context.signal,
  onBytes: (n) => context.meter.addBytes(n),
})

export function createJobTasks({ config, job, backupRunning, runner }: JobTasksDeps): JobTasks {
  const targetLocks = restoreTargetLocks()
  const refuseIfBusy = (name: string) => {
    if (backupRunning(name)) throw new TaskRefusedError(409, `job "${name}" is running a backup; try again when it has finished`)
    if (runner.busy(name)) throw new TaskRefusedError(409, `job "${name}" already has a restore or verify task running; wait for it or cancel it`)
  }

  /** Every copy of a listed snapshot; `SnapshotNotFoundError` (404) when no storage lists it. */
  const locate = async (name: string, repository: JobRepository, snapshot: string): Promise<Located[]> => {
    const copies = (await repository.copies(snapshot)).filter((l): l is Located => !('missing' in l))
    if (copies.length === 0) throw new SnapshotNotFoundError(name, snapshot)
    return copies
  }

  /** Verifies copies in order until one is intact (all of them with `all`); returns the intact ones. */
  const verifyCopies = async (copies: Located[], jobConfig: JobConfig, context: TaskContext, all: boolean) => {
    const intact: Located[] = []
    const problems: string[] = []
    context.meter.phase = 'verifying'
    for (const copy of copies) {
      const where = `storage "${copy.repository.name}"`
      context.meter.currentSource = copy.repository.name
      const result = await copy.snapshot.verify(readOptions(jobConfig, context))
      if (result.ok) {
        const checked =
          result.checkedBy ?? (result.sha256 ? 'sha256 of every part matches the manifest' : `no manifest: ${result.entries ?? 0} entries read to the end`)
        context.log('info', `${where}: intact (${result.partsChecked} part(s), ${result.bytes} bytes; ${checked})`)
        intact.push(copy)
        if (!all) break
      } else {
        for (const problem of result.problems) context.log('error', `${where}: ${problem}`)
        problems.push(`${where}: ${result.problems.join('; ')}`)
      }
    }
    return { intact, problems }
  }

  return {
    async verify(name, snapshot, trigger = 'api') {
      const { config: jobConfig, repository } = job(name)
      refuseIfBusy(name)
      const copies = await locate(name, repository, snapshot)
      refuseIfBusy(name)
      const totalBytes = copies.reduce((sum, copy) => sum + sizeOf(copy), 0)
      return runner.start({ job: name, kind: 'verify', snapshot, totalBytes, trigger }, async (context) => {
        const { intact, problems } = await verifyCopies(copies, jobConfig, context, true)
        const copiesAre = copies.length === 1 ? 'copy is' : 'copies are'
        if (problems.length > 0) throw new Error(`${problems.length} of ${copies.length} ${copiesAre} damaged: ${problems.join(' | ')}`)
        return { summary: `${intact.length} cop${intact.length === 1 ? 'y' : 'ies'} intact (${intact.map((c) => c.repository.name).join(', ')})` }
      })
    },

    async restore(name, snapshot, target, trigger = 'api') {
      const { config: jobConfig, repository } = job(name)
      refuseIfBusy(name)
      const restore = config.restore ?? { roots: [], databases: {} }
      // Every check of the target comes before the snapshot is looked at: a bad request writes nothing.
      let prepared: { label: string; run(located: Located, context: TaskContext): Promise<{ summary: string; bytesWritten?: number }> }
      let release = () => {}
      if (target.kind === 'files') {
        const upload = plannedUpload(jobConfig, target)
        const folder = await resolveRestoreFolder(target.path, restore.roots)
        try {
          const unlock = targetLocks.claim(folder.path, name)
          release = () => {
            folder.release()
            unlock()
          }
        } catch (err) {
          folder.release()
          throw err
        }
        const overwrite = target.overwrite ?? false
        prepared = {
          label: folder.path,
          async run(located, context) {
            const archive = await located.snapshot.openTar(readOptions(jobConfig, context))
            const onEntry = (entry: string) => context.meter.file(entry)
            const journal = beginRestoreJournal(config.dataDir, {
              job: name,
              snapshot,
              trigger,
              startedAt: new Date().toISOString(),
              target: folder.path,
              root: folder.root,
              components: folder.components,
              name: folder.name,
            })
            const result = await restoreFiles(archive, folder, { overwrite, signal: context.signal, onEntry, journal })
              .catch((err: Error) => {
                throw new Error(`${located.snapshot.explainReadError(err).message} (the target folder was left as it was)`, { cause: err })
              })
              .finally(() => journal.end())
            let summary = `restored ${result.files} file(s), ${result.directories} folder(s), ${result.links} link(s), ${result.bytes} bytes into ${folder.path}`
            if (upload) {
              context.log('info', summary)
              summary += `; ${await uploadIntoLibrary(upload, folder.path, context)}`
            }
            return { summary, bytesWritten: result.bytes }
          },
        }
      } else {
        const source = jobConfig.sources.find((s) => s.name === target.source)
        if (!source) throw new TaskRefusedError(400, `job "${name}" has no source "${target.source}"`)
        if (!restoreOf(source)) {
          throw new TaskRefusedError(400, `source "${source.name}" (${source.type}) is not a database source that can be restored into another database`)
        }
        const configured = restore.databases[target.database]
        if (!configured) {
          const known = Object.keys(restore.databases)
          throw new TaskRefusedError(400, `no database "${target.database}" in restore.databases (configured: ${known.length ? known.join(', ') : 'none'})`)
        }
        // Before the claim: a refused kind must not leave the target locked.
        const { source: retargeted, where, failureNote: note } = retargetSource(source, configured, target.database)
        release = targetLocks.claim(`database:${target.database}`, name)
        const overwrite = target.overwrite ?? false
        prepared = {
          label: `database ${target.database}`,
          async run(located, context) {
            context.meter.currentSource = source.name
            const archive = await located.snapshot.openTar(readOptions(jobConfig, context))
            // Once the source is restored (committed), a failure or cancel while the rest of the archive is read changes nothing.
            let restored = false
            const log = (line: string) => {
              if (line.startsWith('restored source ')) restored = true
              context.log('info', line)
            }
            const summary = `restored source "${source.name}" into ${configured.type} database ${where} (restore.databases.${target.database})`
            await restoreDatabase(archive, retargeted, jobConfig.sources, { overwrite, signal: context.signal, log }).catch((err: Error) => {
              if (!restored) throw new Error(`${located.snapshot.explainReadError(err).message}${note}`, { cause: err })
            })
            return { summary }
          },
        }
      }
      try {
        const copies = await locate(name, repository, snapshot)
        refuseIfBusy(name)
        const totalBytes = 2 * sizeOf(copies[0]!)
        return await runner.start({ job: name, kind: 'restore', snapshot, target: prepared.label, totalBytes, trigger }, async (context) => {
          try {
            const { intact, problems } = await verifyCopies(copies, jobConfig, context, false)
            const chosen = intact[0]
            if (!chosen) throw new Error(`no storage holds an intact copy of ${snapshot}: ${problems.join(' | ')}; nothing was restored`)
            context.meter.phase = 'restoring'
            context.log('info', `restoring from storage "${chosen.repository.name}" into ${prepared.label}`)
            return await prepared.run(chosen, context)
          } finally {
            release()
          }
        })
      } catch (err) {
        // Refused before the task started: the task's own finally never runs.
        release()
        throw err
      }
    },

    async drill(name, storage, trigger = 'api') {
      const { config: jobConfig, repository } = job(name)
      refuseIfBusy(name)
      if (storage !== undefined && !jobConfig.storages.some((s) => s.name === storage)) {
        throw new TaskRefusedError(400, `job "${name}" has no storage "${storage}" (storages: ${jobConfig.storages.map((s) => s.name).join(', ')})`)
      }
      const copies = (await repository.copies()).filter((c) => storage === undefined || c.repository.name === storage)
      if (copies.every((c) => 'missing' in c)) throw new SnapshotNotFoundError(name, 'newest')
      refuseIfBusy(name)
      const spec = { job: name, kind: 'drill' as const, snapshot: drilledNames(copies), totalBytes: drillTotalBytes(copies), trigger }
      return runner.start(spec, (context) => drillCopies({ job: jobConfig, dataDir: config.dataDir, copies }, context))
    },

    current: (name) => {
      job(name)
      return runner.current(name)
    },
    follow: (name, listener) => {
      job(name)
      return runner.follow(name, listener)
    },
    cancel: (name) => {
      job(name)
      return runner.cancel(name)
    },
    busy: (name) => runner.busy(name),
    whenDone: (name) => runner.whenDone(name),
    stop: () => runner.stop(),
  }
}
