/**
 * @module metrics/RunMetrics
 * Per-job run metrics in Prometheus' text exposition format (version 0.0.4). Written by hand rather
 * than with `prom-client`: five series with one or two labels need ~60 lines, and loading prom-client
 * costs every daemon and every `backup-daemon run` ~12 MiB of RSS (measured), against a 150 MiB target.
 * Counters start at zero with each process, as Prometheus expects; the last-success gauge is seeded
 * from the state file so a restart does not make an old backup look missing.
 */

export interface RunOutcome {
  job: string
  status: 'success' | 'failed' | 'cancelled'
  durationSeconds: number
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
}

/** Label values escaped as the format requires (backslash, double quote, line feed). */
const label = (value: string) => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')

export class RunMetrics {
  private readonly jobs = new Map<string, JobSeries>()

  /** Every job gets its series at zero, so an alert on `absent()` or `== 0` works before the first run. */
  constructor(jobs: { name: string; lastSuccessAt?: Date }[]) {
    for (const { name, lastSuccessAt } of jobs) this.series(name).lastSuccess = lastSuccessAt ? lastSuccessAt.getTime() / 1000 : 0
  }

  private series(job: string): JobSeries {
    let series = this.jobs.get(job)
    if (!series) {
      series = { runs: { success: 0, failed: 0, cancelled: 0 }, failures: 0, lastSuccess: 0 }
      this.jobs.set(job, series)
    }
    return series
  }

  record(outcome: RunOutcome): void {
    const series = this.series(outcome.job)
    series.runs[outcome.status]++
    if (outcome.status !== 'success') series.failures++
    series.duration = outcome.durationSeconds
    if (outcome.status === 'success') {
      if (outcome.size !== undefined) series.size = outcome.size
      series.lastSuccess = outcome.finishedAt.getTime() / 1000
    }
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
    return { contentType: metricsContentType, body: lines.join('\n') + '\n' }
  }
}
