/**
 * @module engine/drillEnded
 * What the engine does when a restore drill (a task of kind `drill`) has ended: its outcome goes into the
 * metrics (last success, failures), and the job's notifiers that listen for it are told (`failure` and
 * `drill-failure` hear a failed drill, `drill-success` a proven one; healthchecks, whose pings are the
 * backup's heartbeat, only with `drill-failure` / `drill-success`: `notify/webhookNotifier.wantsEvent`).
 * A cancelled drill is neither. Notifying never throws and is not awaited by the task.
 */
import { hostname } from 'node:os'
import type { RunMetrics } from '../metrics/RunMetrics.js'
import { notifyAll } from '../notify/createNotifiers.js'
import type { Notifier, RunReport } from '../notify/types.js'
import { drillProvedSomething, type RunRecord } from '../runs/history.js'
import { formatDuration } from './formatDuration.js'
import type { Log } from './jobRuntime.js'

export function drillEnded(record: RunRecord, { metrics, notifiers, log }: { metrics: RunMetrics; notifiers: Notifier[]; log: Log }): Promise<void> {
  if (record.kind !== 'drill') return Promise.resolve()
  // A drill that could compare no copy (no record anywhere) proved nothing: neither a success nor a failure.
  if (record.result === 'success' && !drillProvedSomething(record)) {
    log('warn', `[drill] nothing was proven: ${record.notProven!.join(' | ')}`)
    return Promise.resolve()
  }
  metrics.recordDrill({ job: record.job, status: record.result, finishedAt: new Date(record.endedAt) })
  if (record.result === 'cancelled' || notifiers.length === 0) return Promise.resolve()
  const report: RunReport = {
    kind: 'drill',
    job: record.job,
    status: record.result === 'success' ? 'success' : 'failure',
    startedAt: record.startedAt,
    finishedAt: record.endedAt,
    duration: formatDuration(record.durationMs),
    durationSeconds: record.durationMs / 1000,
    error: record.error ?? '',
    snapshot: null,
    host: hostname(),
  }
  return notifyAll(notifiers, report, (level, message) => log(level, `[drill] ${message}`))
}
