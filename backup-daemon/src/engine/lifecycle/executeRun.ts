/**
 * @module engine/lifecycle/executeRun
 * One backup run from its start to its record: the job's run (`engine/runJob`, after the job's start-up
 * sweep), then what an ended run leaves behind: the saved state, the metrics, the storages marked up
 * again, the history record, the watchers' `end`, the log lines and the notifications.
 */
import { hostname } from 'node:os'
import type { WrittenSnapshot } from '../../repository/types.js'
import type { RunMetrics } from '../../metrics/RunMetrics.js'
import { notifyAll, notifyStarted } from '../../notify/createNotifiers.js'
import type { RunReport } from '../../notify/types.js'
import type { RunHistory, RunRecord } from '../../runs/history.js'
import type { InFlightNotes } from '../../runs/InFlightNotes.js'
import type { RunWatchers } from '../../runs/RunWatchers.js'
import type { DaemonLogHub } from '../createLogHub.js'
import { formatDuration } from '../formatDuration.js'
import { runRecordId } from '../../runs/runRecordId.js'
import type { EngineLog, JobRuntime } from '../jobRuntime.js'
import type { ProgressTracker } from '../progress/ProgressTracker.js'
import { runJob } from '../runJob.js'
import type { StorageHealth } from '../startupCleanup.js'
import type { StateStore } from '../StateStore.js'

export interface RunDeps {
  logs: DaemonLogHub
  log: EngineLog
  state: StateStore
  metrics: RunMetrics
  health: StorageHealth
  history: RunHistory
  /** Where a run in flight is noted, so a killed one is recorded at the next start. */
  notes: InFlightNotes
  watchers: RunWatchers
  /** gzip level for `tar.gz` jobs. */
  gzipLevel?: number
}

export interface RunStart {
  name: string
  job: JobRuntime
  controller: AbortController
  started: Date
  trigger: RunRecord['trigger']
  tracker: ProgressTracker
}

export async function executeRun(deps: RunDeps, { name, job, controller, started, trigger, tracker }: RunStart): Promise<void> {
  const { logs, state, metrics, health, history, watchers } = deps
  const log = deps.log.job(name)
  const systemLog = deps.log.system
  // The run's own lines for notifiers that send them (healthchecks); subscribed, so kept even when `logs.perJob` is off.
  const runLines: string[] = []
  const unsubscribe = job.notifiers.length
    ? logs.subscribe({ kind: 'job', job: name }, (line) => {
        if (runLines.push(line) > 500) runLines.shift()
      })
    : undefined
  const id = runRecordId(started)
  const noted = deps.notes.begin({ id, job: name, kind: 'backup', trigger, startedAt: started.toISOString() })
  log('info', `run started (${trigger})`)
  systemLog('info', `[${name}] run started (${trigger})`)
  // Not awaited before the backup (an unreachable endpoint must not delay it), only before the final notifications.
  const startPings = notifyStarted(job.notifiers, name, log)
  let error = ''
  let status: 'success' | 'failed' | 'cancelled' = 'success'
  let manifest: WrittenSnapshot | undefined
  try {
    await job.swept
    manifest = await runJob({ job: job.config, repository: job.repository, signal: controller.signal, log, level: deps.gzipLevel, tracker })
  } catch (err) {
    const reason = controller.signal.aborted ? controller.signal.reason : err
    error = reason instanceof Error ? reason.message : String(reason)
    status = controller.signal.aborted ? 'cancelled' : 'failed'
  }
  const finished = new Date()
  const elapsed = finished.getTime() - started.getTime()
  const duration = formatDuration(elapsed)
  state.update(name, {
    lastResult: { success: status === 'success', duration, error },
    run: { endTime: finished.toISOString(), duration, error, status },
  })
  metrics.record({ job: name, status, durationSeconds: elapsed / 1000, size: manifest?.size, finishedAt: finished })
  if (status === 'success') health.upAll(name)
  tracker.stop()
  const written = tracker.writtenPerStorage()
  const record: RunRecord = {
    id,
    job: name,
    kind: 'backup',
    trigger,
    startedAt: started.toISOString(),
    endedAt: finished.toISOString(),
    durationMs: elapsed,
    result: status,
    bytesRead: tracker.bytesRead(),
    bytesWritten: Math.max(0, ...written.map((w) => w.bytesWritten)),
    storages: written,
    filesRead: tracker.files,
    ...(manifest && { snapshot: manifest.name }),
    ...(error && { error }),
  }
  await history.append(record).catch((err: Error) => log('warn', `run history not saved: ${err.message}`))
  noted()
  watchers.end(name, record)
  if (status === 'success') log('info', `run succeeded in ${duration}`)
  else log(status === 'cancelled' ? 'warn' : 'error', `run ${status} after ${duration}: ${error}`)
  // A failure or cancel reached the system log with the job line above (warnings and errors are copied).
  if (status === 'success') systemLog('info', `[${name}] run succeeded in ${duration}`)
  if (job.notifiers.length > 0) {
    const report: RunReport = {
      kind: 'backup',
      job: name,
      status: status === 'failed' ? 'failure' : status,
      startedAt: started.toISOString(),
      finishedAt: finished.toISOString(),
      duration,
      durationSeconds: elapsed / 1000,
      error,
      snapshot: manifest
        ? {
            name: manifest.name,
            size: manifest.size,
            ...(manifest.sha256 && { sha256: manifest.sha256 }),
            parts: manifest.partsCount,
            storages: job.repository.repositories.map((r) => r.name),
            ...(manifest.references?.length && { references: manifest.references }),
          }
        : null,
      host: hostname(),
    }
    await startPings
    unsubscribe?.()
    await notifyAll(job.notifiers, report, log, { logLines: runLines })
  }
}
