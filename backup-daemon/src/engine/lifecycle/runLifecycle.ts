/**
 * @module engine/lifecycle/runLifecycle
 * Starting, cancelling and stopping backup runs: one run per job at a time (and none while something
 * else holds the job, e.g. a restore task: `busyElsewhere`), the run lock shared with other processes,
 * one AbortSignal per run, and a progress tracker whose total comes from the previous good run or, for
 * a first run, from counting what the sources will read (`engine/progress/countRunTotal`).
 */
import { EngineStoppingError, JobBusyError, NoRunInFlightError } from '../../runs/errors.js'
import type { RunRecord } from '../../runs/history.js'
import type { JobRuntime } from '../jobRuntime.js'
import { countRunTotal } from '../progress/countRunTotal.js'
import { ProgressTracker } from '../progress/ProgressTracker.js'
import type { RunLock } from '../RunLock.js'
import { executeRun, type RunDeps } from './executeRun.js'

/** Raised inside a run when it is cancelled; its message becomes the run's `error`. */
class RunCancelled extends Error {
  override name = 'RunCancelled'
}

export interface RunLifecycleDeps extends RunDeps {
  jobs: Map<string, JobRuntime>
  runtime(name: string): JobRuntime
  locks: RunLock
  /** Whether something else holds the job (the composition root's restore and verify tasks); a run is refused meanwhile. */
  busyElsewhere(name: string): boolean
}

export interface RunLifecycle {
  run(name: string, trigger: RunRecord['trigger']): { startedAt: string }
  cancel(name: string): { cancelledAt: string }
  /** Refuses new runs, cancels those in flight and resolves with their ends (not awaited here). */
  stopRuns(): Promise<void>[]
}

export function runLifecycle(deps: RunLifecycleDeps): RunLifecycle {
  const { jobs, runtime, locks, state, history, watchers } = deps
  let stopping = false

  /** A tracker for a run starting now; the total comes from the previous good run, else from counting the sources. */
  const trackerFor = (name: string, job: JobRuntime, started: Date, counting: AbortSignal): ProgressTracker => {
    const previous = history.list(name).find((r) => r.kind === 'backup' && r.result === 'success' && r.bytesRead > 0)
    const tracker = new ProgressTracker({
      kind: 'backup',
      startedAt: started,
      storages: job.repository.repositories.map((r) => r.name),
      totalBytes: previous?.bytesRead,
      onTick: (progress) => watchers.progress(name, progress),
    }).start()
    if (!previous) {
      countRunTotal(job.config.sources, counting)?.then(
        (total) => (tracker.totalBytes = total),
        () => {},
      )
    }
    return tracker
  }

  const run = (name: string, trigger: RunRecord['trigger']): { startedAt: string } => {
    if (stopping) throw new EngineStoppingError()
    const job = runtime(name)
    if (job.status !== 'idle' || deps.busyElsewhere(name) || !locks.acquire(name)) throw new JobBusyError(name)
    const started = new Date()
    const controller = new AbortController()
    job.status = 'running'
    job.controller = controller
    state.update(name, {
      lastRun: started.toISOString(),
      run: { startTime: started.toISOString(), endTime: '', duration: '', error: '', status: 'running' },
    })
    // The count of the sources stops with the run (a run of a huge tree may end first).
    const counting = new AbortController()
    const tracker = (job.tracker = trackerFor(name, job, started, counting.signal))
    job.done = executeRun(deps, { name, job, controller, started, trigger, tracker }).finally(() => {
      counting.abort()
      tracker.stop()
      job.status = 'idle'
      job.controller = undefined
      job.tracker = undefined
      locks.release(name)
    })
    return { startedAt: started.toISOString() }
  }

  return {
    run,
    cancel(name) {
      const job = runtime(name)
      if (job.status === 'idle' || !job.controller) throw new NoRunInFlightError(name)
      if (job.status === 'running') {
        job.status = 'cancelling'
        state.update(name, { run: { status: 'cancelling' } })
        deps.log.job(name)('warn', 'cancel requested')
        job.controller.abort(new RunCancelled('cancelled'))
      }
      return { cancelledAt: new Date().toISOString() }
    },
    stopRuns() {
      stopping = true
      const inFlight = [...jobs.values()].filter((job) => job.status !== 'idle')
      for (const job of inFlight) {
        job.status = 'cancelling'
        job.controller?.abort(new RunCancelled('cancelled: the daemon is shutting down'))
      }
      return inFlight.map((job) => job.done ?? Promise.resolve())
    },
  }
}
