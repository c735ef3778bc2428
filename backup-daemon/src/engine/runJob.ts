/**
 * @module engine/runJob
 * One run of one job, start to end: clean leftovers, write a snapshot of the sources into every
 * repository of the job (`repository/`), apply retention. Resolves with what was committed; rejects
 * with the abort reason when cancelled, after the repository removed everything the run wrote.
 */
import type { JobConfig } from '../config/types.js'
import type { LogLevel } from '../logs/formatLine.js'
import type { JobRepository } from '../repository/jobRepository.js'
import { hasRules } from '../repository/retentionPlan.js'
import type { WrittenSnapshot } from '../repository/types.js'
import { createSource } from '../sources/all.js'
import { storageFactory } from '../storages/all.js'
import { noopTracker, type RunTracker } from './progress/RunTracker.js'
import { withHooks } from './runHooks.js'

export interface RunJobOptions {
  job: JobConfig
  repository: JobRepository
  signal: AbortSignal
  log(level: LogLevel, message: string): void
  /** gzip level when the job sets none. @default 6 */
  level?: number
  /** Told the phases and counts of the run (`engine/progress/`). @default noopTracker */
  tracker?: RunTracker
}

/** The run between the job's `beforeScript` and `afterScript` (`engine/runHooks.ts`). */
export function runJob(options: RunJobOptions): Promise<WrittenSnapshot> {
  const tracker = options.tracker ?? noopTracker
  tracker.phase(options.job.beforeScript ? 'hooks' : 'preparing')
  return withHooks(options.job, options, () => writeRun(options, tracker).finally(() => tracker.phase(options.job.afterScript ? 'hooks' : 'finishing')))
}

async function writeRun({ job, repository, signal, log, level }: RunJobOptions, tracker: RunTracker): Promise<WrittenSnapshot> {
  tracker.phase('preparing')
  await repository.removeLeftovers(log)
  signal.throwIfAborted()
  // A compressed archive, or a repository of another kind (restic: deduplicating, compressing): a dump's own compression only costs then.
  const compressedDownstream = job.compression !== 'tar' || job.storages.some((storage) => storageFactory(storage.type)?.repository !== undefined)
  const context = { log: (lvl: 'info' | 'warn', message: string) => log(lvl, message), compressedDownstream }
  const written = await repository.write({
    job,
    createSources: () => tracker.trackSources(job.sources.map((config) => createSource(config, context))),
    createdAt: new Date(),
    signal,
    log,
    progress: tracker,
    ...(level !== undefined && { level }),
  })
  tracker.storagesCommitted()
  if (hasRules(job.retention)) {
    tracker.phase('retention')
    await repository.applyRetention(job.retention, log)
  }
  return written
}
