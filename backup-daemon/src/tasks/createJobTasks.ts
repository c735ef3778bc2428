/**
 * @module tasks/createJobTasks
 * Verify, restore and drill of a job's snapshots: the one path every caller takes (the API and the UI, the
 * CLI's `verify`/`restore`/`drill`, the drill schedule), so every task is checked the same way, runs in the
 * `TaskRunner` (progress, cancel, log lines) and ends as one record in the history and the metrics,
 * whatever started it. Every request is checked before anything runs (job known, storage known, snapshot
 * listed, target allowed and held, nothing else running for the job: neither a task nor a backup) and
 * refused with a `TaskRefusedError` / `SnapshotNotFoundError`; then the work runs:
 *
 * - verify: every copy of the snapshot is checked (`verifyCopies`); each result goes to the damage ledger,
 *   so the listing shows a damaged copy until a later verify passes. Fails when one copy is bad.
 * - restore: the first copy that verifies is read (`restoreTask`): files into a folder, a database source
 *   into a database, or the operator's sources in place.
 * - drill: the newest snapshot of each storage verified, restored into a scratch folder and compared with
 *   what the backup recorded (`drillTask`).
 */
import type { DaemonConfig, JobConfig } from '../config/types.js'
import type { JobRepository, SnapshotCopy } from '../repository/jobRepository.js'
import { SnapshotNotFoundError, SnapshotUnreachableError } from '../runs/errors.js'
import type { RunRecord } from '../runs/history.js'
import type { RunListener } from '../runs/RunWatchers.js'
import { drillCopies, drilledNames, drillTotalBytes, drillTotalFiles } from './drillTask.js'
import { prepareRestore } from './restoreTask.js'
import { restoreTargetLocks } from './restoreTargetLocks.js'
import { taskReads } from './taskReads.js'
import type { TaskRunner } from './TaskRunner.js'
import { TaskRefusedError } from './TaskRefusedError.js'
import type { OperatorRestoreTarget, RestoreTarget, TaskView } from './TaskView.js'
import { restoreFromFirstReadable } from './restoreFromFirstReadable.js'
import { restoreOptions, type RestoreOptions } from './restoreOptions.js'
import { verifyCopies, type Located } from './verifyCopies.js'

type Trigger = RunRecord['trigger']

/** What a caller may narrow: one storage of the job (the CLI's `--storage`). */
export interface TaskScope {
  storage?: string
}

export interface RestoreScope extends TaskScope {
  /** age identities for a snapshot encrypted to recipients (the CLI's `--identity FILE`). */
  identities?: readonly string[]
}

export interface JobTasks {
  /** Every copy of `snapshot` (the newest of each storage when undefined: the CLI's `verify JOB`). */
  verify(job: string, snapshot: string | undefined, trigger?: Trigger, scope?: TaskScope): Promise<TaskView>
  restore(job: string, snapshot: string, target: RestoreTarget | OperatorRestoreTarget, trigger?: Trigger, scope?: RestoreScope): Promise<TaskView>
  /** A restore drill of the newest snapshot on every storage of the job, or on `storage` only. */
  drill(job: string, storage?: string, trigger?: Trigger): Promise<TaskView>
  /** What a restore of the job may target (roots, databases per source, library uploads); throws `JobNotFoundError`. */
  restoreOptions(job: string): RestoreOptions
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
  /** The files the backup that wrote `snapshot` read (its history record), the progress total of a restore or drill; undefined: not known. */
  filesOf?(job: string, snapshot: string): number | undefined
}

const sizeOf = (located: Located) => located.snapshot.size

export function createJobTasks({ config, job, backupRunning, runner, filesOf }: JobTasksDeps): JobTasks {
  const targetLocks = restoreTargetLocks()
  const refuseIfBusy = (name: string) => {
    if (backupRunning(name)) throw new TaskRefusedError(409, `job "${name}" is running a backup; try again when it has finished`)
    if (runner.busy(name)) throw new TaskRefusedError(409, `job "${name}" already has a restore or verify task running; wait for it or cancel it`)
  }
  const checkStorage = (jobConfig: JobConfig, storage: string | undefined) => {
    if (storage !== undefined && !jobConfig.storages.some((s) => s.name === storage)) {
      throw new TaskRefusedError(400, `job "${jobConfig.name}" has no storage "${storage}" (storages: ${jobConfig.storages.map((s) => s.name).join(', ')})`)
    }
  }
  /** One answer per storage (the one `storage` names, or all): its copy, or why it has none. */
  const copiesOf = async (repository: JobRepository, snapshot: string | undefined, storage: string | undefined): Promise<SnapshotCopy[]> =>
    (await repository.copies(snapshot)).filter((copy) => storage === undefined || copy.repository.name === storage)
  /**
   * The copies that exist; `SnapshotNotFoundError` (404) when no storage holds one, `SnapshotUnreachableError`
   * (404, naming them) when some storages could not be read. A task that reports per storage (verify, drill)
   * runs anyway when a storage could not be read: it fails naming it, a storage that is down is never "no snapshot".
   */
  const present = (name: string, copies: SnapshotCopy[], snapshot: string | undefined, runsOnUnreadable = false): Located[] => {
    const found = copies.filter((copy): copy is Located => !('missing' in copy))
    const unreadable = copies.flatMap((copy) => ('missing' in copy && copy.unreadable ? [`storage "${copy.repository.name}" ${copy.missing}`] : []))
    if (found.length === 0 && !(runsOnUnreadable && unreadable.length > 0)) {
      throw unreadable.length ? new SnapshotUnreachableError(name, snapshot ?? 'newest', unreadable) : new SnapshotNotFoundError(name, snapshot ?? 'newest')
    }
    return found
  }

  return {
    async verify(name, snapshot, trigger = 'manual', scope = {}) {
      const { config: jobConfig, repository } = job(name)
      checkStorage(jobConfig, scope.storage)
      refuseIfBusy(name)
      const copies = await copiesOf(repository, snapshot, scope.storage)
      const found = present(name, copies, snapshot, true)
      refuseIfBusy(name)
      const reads = taskReads(jobConfig)
      const spec = {
        job: name,
        kind: 'verify' as const,
        snapshot: snapshot ?? drilledNames(copies),
        totalBytes: found.reduce((sum, c) => sum + sizeOf(c), 0),
        trigger,
      }
      return runner.start(spec, async (context) => {
        // A storage that cannot be read is a failure too: absence is never silence.
        const unreadable = copies.flatMap((copy) => ('missing' in copy && copy.unreadable ? [`storage "${copy.repository.name}": ${copy.missing}`] : []))
        for (const problem of unreadable) context.log('error', problem)
        const { intact, problems } = await verifyCopies(found, reads, context, {
          all: true,
          onVerified: (copy, result) => repository.noteVerified(copy.repository.name, copy.snapshot.view.name, result),
        })
        const failed = [...unreadable, ...problems]
        const asked = found.length + unreadable.length
        if (failed.length > 0)
          throw new Error(`${failed.length} of ${asked} ${asked === 1 ? 'copy is' : 'copies are'} damaged or unreadable: ${failed.join(' | ')}`)
        return { summary: `${intact.length} cop${intact.length === 1 ? 'y' : 'ies'} intact (${intact.map((c) => c.repository.name).join(', ')})` }
      })
    },

    async restore(name, snapshot, target, trigger = 'manual', scope = {}) {
      const { config: jobConfig, repository } = job(name)
      checkStorage(jobConfig, scope.storage)
      refuseIfBusy(name)
      // Every check of the target comes before the snapshot is looked at: a bad request writes nothing.
      const prepared = await prepareRestore({ config, job: jobConfig, snapshot, trigger, locks: targetLocks }, target)
      try {
        const found = present(name, await copiesOf(repository, snapshot, scope.storage), snapshot)
        refuseIfBusy(name)
        const reads = taskReads(jobConfig, {
          ...(scope.identities && { identities: scope.identities }),
          ...(prepared.sources && { sources: prepared.sources }),
        })
        // A folder restore reads the snapshot once (its read is the check); a database's is verified, then read.
        const totalBytes = (prepared.checksAsItReads ? 1 : 2) * sizeOf(found[0]!)
        // A files restore counts each entry it unpacks: weighed in its progress when the backup's count is known.
        const files = prepared.checksAsItReads ? filesOf?.(name, found[0]!.snapshot.view.name) : undefined
        const spec = { job: name, kind: 'restore' as const, snapshot, target: prepared.label, totalBytes, trigger, ...(files && { totalFiles: files }) }
        return await runner.start(spec, async (context) => {
          try {
            if (prepared.checksAsItReads) return await restoreFromFirstReadable(found, (copy) => prepared.run(copy, reads, context), context)
            const { intact, problems } = await verifyCopies(found, reads, context, {
              all: false,
              onVerified: (copy, result) => repository.noteVerified(copy.repository.name, copy.snapshot.view.name, result),
            })
            const chosen = intact[0]
            if (!chosen) throw new Error(`no storage holds an intact copy of ${snapshot}: ${problems.join(' | ')}; nothing was restored`)
            context.meter.phase = 'restoring'
            context.log('info', `restoring from storage "${chosen.repository.name}" into ${prepared.label}`)
            return await prepared.run(chosen, reads, context)
          } finally {
            prepared.release()
          }
        })
      } catch (err) {
        // Refused before the task started: the task's own finally never runs.
        prepared.release()
        throw err
      }
    },

    async drill(name, storage, trigger = 'manual') {
      const { config: jobConfig, repository } = job(name)
      checkStorage(jobConfig, storage)
      refuseIfBusy(name)
      const copies = await copiesOf(repository, undefined, storage)
      present(name, copies, undefined, true)
      refuseIfBusy(name)
      const totalFiles = drillTotalFiles(copies, (snapshot) => filesOf?.(name, snapshot))
      const spec = {
        job: name,
        kind: 'drill' as const,
        snapshot: drilledNames(copies),
        totalBytes: drillTotalBytes(copies),
        trigger,
        ...(totalFiles && { totalFiles }),
      }
      return runner.start(spec, (context) =>
        drillCopies(
          {
            job: jobConfig,
            dataDir: config.dataDir,
            copies,
            reads: taskReads(jobConfig),
            noteVerified: (copy, result) => repository.noteVerified(copy.repository.name, copy.snapshot.view.name, result),
          },
          context,
        ),
      )
    },

    restoreOptions: (name) => restoreOptions(config, job(name).config),
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
