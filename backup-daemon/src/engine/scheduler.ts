/**
 * @module engine/scheduler
 * The croner schedules of the active jobs that have one. A scheduled run goes through the same `run` as
 * a manual one; a run still going (or a task of the job) makes croner's fire a logged skip, not an error.
 */
import { Cron } from 'croner'
import { EngineStoppingError, JobBusyError } from '../runs/errors.js'
import type { RunRecord } from '../runs/history.js'
import type { EngineLog, JobRuntime } from './jobRuntime.js'

export function scheduleJobs(jobs: Map<string, JobRuntime>, run: (name: string, trigger: RunRecord['trigger']) => unknown, log: EngineLog): void {
  for (const [name, job] of jobs) {
    if (!job.config.active || !job.config.schedule) continue
    // `protect` keeps croner from firing again while the callback's run is still going.
    job.cron = new Cron(job.config.schedule, { timezone: job.config.timezone, protect: true, catch: true, name: `backup:${name}` }, async () => {
      try {
        run(name, 'schedule')
        await job.done
      } catch (err) {
        if (err instanceof JobBusyError) log.job(name)('warn', 'scheduled run skipped: the job is already running')
        else if (!(err instanceof EngineStoppingError)) log.job(name)('error', `scheduled run failed to start: ${(err as Error).message}`)
      }
    })
  }
}
