/**
 * @module metrics/RunMetrics
 * Per-job run metrics in Prometheus' text exposition format (version 0.0.4). Written by hand rather
 * than with `prom-client`: five series with one or two labels need ~60 lines, and loading prom-client
 * costs every daemon and every `backup-daemon run` ~12 MiB of RSS (measured), against a 150 MiB target.
 * Counters start at zero with each process, as Prometheus expects; the last-success gauge is seeded
 * from the state file so a restart does not make an old backup look missing. Restore drills (issue 25)
 * have their own two series (last success, failures), the success seeded from the run history.
 */

export interface RunOutcome {
  job: string
  status: 'success' | 'failed' | 'cancelled'
  /** Unknown for a run found killed at the next start (the duration gauge keeps its value). */
  durationSeconds?: number
  /** Archive bytes of a successful run. */
  size?: number
  finishedAt: Date
}

export const metricsContentType = 'text/plain; version=0.0.4; charset=utf-8'

const statuses = ['success', 'failed', 'cancelled'] as const

interface JobSeries {
  runs: Record<(typeof statuses)[number], number>
  failures: number
  duration?: number
  size?: number
  lastSuccess: number
  drillFailures: number
  lastDrillSuccess: number
}

/** An ended restore drill (a task of kind `drill`). */
export interface DrillOutcome {
  job: string
  status: 'success' | 'failed' | 'cancelled'
  finishedAt: Date
}

/** Label values escaped as the format requires (backslash, double quote, line feed). */
const label = (value: string) => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')

export class RunMetrics {
  private readonly jobs = new Map<string, JobSeries>()

  /** Every job gets its series at zero, so an alert on `absent()` or `== 0` works before the first run. */
  constructor(jobs: { name: string; lastSuccessAt?: Date; lastDrillSuccessAt?: Date }[]) {
    for (const { name, lastSuccessAt, lastDrillSuccessAt } of jobs) {
      const series = this.series(name)
      series.lastSuccess = lastSuccessAt ? lastSuccessAt.getTime() / 1000 : 0
      series.lastDrillSuccess = lastDrillSuccessAt ? lastDrillSuccessAt.getTime() / 1000 : 0
    }
  }

  private series(job: string): JobSeries {
    let series = this.jobs.get(job)
    if (!series) {
      series = { runs: { success: 0, failed: 0, cancelled: 0 }, failures: 0, lastSuccess: 0, drillFailures: 0, lastDrillSuccess: 0 }
      this.jobs.set(job, series)
    }
    return series
  }

  record(outcome: RunOutcome): void {
    const series = this.series(outcome.job)
    series.runs[outcome.status]++
    if (outcome.status !== 'success') series.failures++
    if (outcome.durationSeconds !== undefined) series.duration = outcome.durationSeconds
    if (outcome.status === 'success') {
      if (outcome.size !== undefined) series.size = outcome.size
      series.lastSuccess = outcome.finishedAt.getTime() / 1000
    }
  }

  /** A drill that failed counts as a failure; a cancelled one is neither. */
  recordDrill(outcome: DrillOutcome): void {
    const series = this.series(outcome.job)
    if (outcome.status === 'failed') series.drillFailures++
    if (outcome.status === 'success') series.lastDrillSuccess = outcome.finishedAt.getTime() / 1000
  }

  /** The exposition text and its content type. */
  async render(): Promise<{ contentType: string; body: string }> {
    const lines: string[] = []
    const family = (name: string, type: 'counter' | 'gauge', help: string, samples: [string, number | undefined][]) => {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`)
      for (const [labels, value] of samples) if (value !== undefined) lines.push(`${name}{${labels}} ${value}`)
    }
    const jobs = [...this.jobs.entries()]
    family(
      'backup_daemon_runs_total',
      'counter',
      'Runs finished, by job and status (success, failed, cancelled).',
      jobs.flatMap(([job, s]) => statuses.map((status): [string, number] => [`job="${label(job)}",status="${status}"`, s.runs[status]])),
    )
    family(
      'backup_daemon_failures_total',
      'counter',
      'Runs that failed or were cancelled, by job.',
      jobs.map(([job, s]) => [`job="${label(job)}"`, s.failures]),
    )
    family(
      'backup_daemon_last_duration_seconds',
      'gauge',
      'Duration of the newest finished run, by job.',
      jobs.map(([job, s]) => [`job="${label(job)}"`, s.duration]),
    )
    family(
      'backup_daemon_last_size_bytes',
      'gauge',
      'Archive size of the newest successful run, by job.',
      jobs.map(([job, s]) => [`job="${label(job)}"`, s.size]),
    )
    family(
      'backup_daemon_last_success_timestamp_seconds',
      'gauge',
      'Unix time the newest successful run ended, by job (0: none known).',
      jobs.map(([job, s]) => [`job="${label(job)}"`, s.lastSuccess]),
    )
    family(
      'backup_daemon_drill_failures_total',
      'counter',
      'Restore drills that failed (a difference from the record, a damaged copy, a restore error), by job.',
      jobs.map(([job, s]) => [`job="${label(job)}"`, s.drillFailures]),
    )
    family(
      'backup_daemon_drill_last_success_timestamp_seconds',
      'gauge',
      'Unix time the newest successful restore drill ended, by job (0: none known).',
      jobs.map(([job, s]) => [`job="${label(job)}"`, s.lastDrillSuccess]),
    )
    return { contentType: metricsContentType, body: lines.join('\n') + '\n' }
  }
}
