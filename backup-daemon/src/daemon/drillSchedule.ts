/**
 * @module daemon/drillSchedule
 * Restore drills on a schedule (`jobs[].drill.schedule`): the composition root's, since a drill is a task
 * (`tasks/createJobTasks`) and the engine's scheduler knows only backups. Each fire starts a drill with
 * trigger `schedule` and waits for it; a drill refused because the job is busy (a backup or another task)
 * or has no snapshot yet is a logged skip, not an error. Paused jobs (`active: false`) are not drilled.
 */
import { Cron } from 'croner'
import type { DaemonConfig } from '../config/types.js'
import type { LogLevel } from '../logs/formatLine.js'
import { SnapshotNotFoundError } from '../runs/errors.js'
import type { JobTasks } from '../tasks/createJobTasks.js'
import { TaskRefusedError } from '../tasks/TaskRefusedError.js'

/** Starts the drill schedules; returns the function that stops them. */
export function scheduleDrills(config: DaemonConfig, tasks: JobTasks, log: (job: string, level: LogLevel, message: string) => void): () => void {
  const crons: Cron[] = []
  for (const job of config.jobs) {
    if (!job.active || !job.drill?.schedule) continue
    const { schedule, storage } = job.drill
    // `protect`: no second fire while a drill of this schedule is still going.
    const cron = new Cron(schedule, { timezone: job.timezone, protect: true, catch: true, name: `drill:${job.name}` }, async () => {
      try {
        await tasks.drill(job.name, storage, 'schedule')
        await tasks.whenDone(job.name)
      } catch (err) {
        if (err instanceof TaskRefusedError && err.status === 409) log(job.name, 'warn', `[drill] scheduled drill skipped: ${err.message}`)
        else if (err instanceof SnapshotNotFoundError) log(job.name, 'warn', '[drill] scheduled drill skipped: no snapshot to drill yet')
        else log(job.name, 'error', `[drill] scheduled drill failed to start: ${(err as Error).message}`)
      }
    })
    crons.push(cron)
  }
  return () => {
    for (const cron of crons) cron.stop()
  }
}
