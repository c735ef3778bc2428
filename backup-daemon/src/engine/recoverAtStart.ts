/**
 * @module engine/recoverAtStart
 * What the engine does once at start, before it schedules anything: a run that was in flight when the
 * previous process died is recorded as failed, and every job's storages are swept of what an unfinished
 * run left there, in the background (`engine/startupCleanup`; a run waits for its job's sweep).
 * A job whose run lock another live process holds (a CLI `run` beside the daemon) is left alone.
 */
import type { JobRuntime, EngineLog } from './jobRuntime.js'
import type { RunLock } from './RunLock.js'
import type { StateStore } from './StateStore.js'
import { sweepLeftovers, type StorageHealth } from './startupCleanup.js'

export interface RecoveryDeps {
  jobs: Map<string, JobRuntime>
  state: StateStore
  locks: RunLock
  health: StorageHealth
  log: EngineLog
}

export function recoverAtStart({ jobs, state, locks, health, log }: RecoveryDeps): void {
  for (const [name, job] of jobs) {
    if (locks.heldElsewhere(name) !== undefined) continue
    const previous = state.get(name)
    if (previous.run.status === 'running' || previous.run.status === 'cancelling') {
      const error = 'interrupted: the daemon stopped during the run'
      state.update(name, { lastResult: { success: false, duration: previous.run.duration, error }, run: { status: 'failed', error } })
      log.job(name)('warn', `the previous run did not finish (${error})`)
    }
    // In the background: an unreachable storage must not delay serving (engine/startupCleanup).
    job.swept = sweepLeftovers(job.repository, log.job(name), health)
  }
}
