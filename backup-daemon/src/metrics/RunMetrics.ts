/**
 * @module metrics/RunMetrics
 * Per-job run metrics in Prometheus' text format, with `prom-client` on a registry of its own (no
 * process-wide default metrics: the daemon's page shows only what it declares). Counters start at zero
 * with each process, as Prometheus expects; the last-success gauge is seeded from the state file so a
 * restart does not make an old backup look missing.
 */
import { Counter, Gauge, Registry } from 'prom-client'

export interface RunOutcome {
  job: string
  status: 'success' | 'failed' | 'cancelled'
  durationSeconds: number
  /** Archive bytes of a successful run. */
  size?: number
  finishedAt: Date
}

export class RunMetrics {
  readonly registry = new Registry()
  private readonly runs = new Counter({ name: 'backup_daemon_runs_total', help: 'Runs finished, by job and status (success, failed, cancelled).', labelNames: ['job', 'status'], registers: [this.registry] })
  private readonly failures = new Counter({ name: 'backup_daemon_failures_total', help: 'Runs that failed or were cancelled, by job.', labelNames: ['job'], registers: [this.registry] })
  private readonly duration = new Gauge({ name: 'backup_daemon_last_duration_seconds', help: 'Duration of the newest finished run, by job.', labelNames: ['job'], registers: [this.registry] })
  private readonly size = new Gauge({ name: 'backup_daemon_last_size_bytes', help: 'Archive size of the newest successful run, by job.', labelNames: ['job'], registers: [this.registry] })
  private readonly lastSuccess = new Gauge({ name: 'backup_daemon_last_success_timestamp_seconds', help: 'Unix time the newest successful run ended, by job (0: none known).', labelNames: ['job'], registers: [this.registry] })

  /** Every job gets its series at zero, so an alert on `absent()` or `== 0` works before the first run. */
  constructor(jobs: { name: string; lastSuccessAt?: Date }[]) {
    for (const { name, lastSuccessAt } of jobs) {
      for (const status of ['success', 'failed', 'cancelled']) this.runs.inc({ job: name, status }, 0)
      this.failures.inc({ job: name }, 0)
      this.lastSuccess.set({ job: name }, lastSuccessAt ? lastSuccessAt.getTime() / 1000 : 0)
    }
  }

  record(outcome: RunOutcome): void {
    const job = outcome.job
    this.runs.inc({ job, status: outcome.status })
    if (outcome.status !== 'success') this.failures.inc({ job })
    this.duration.set({ job }, outcome.durationSeconds)
    if (outcome.status === 'success') {
      if (outcome.size !== undefined) this.size.set({ job }, outcome.size)
      this.lastSuccess.set({ job }, outcome.finishedAt.getTime() / 1000)
    }
  }

  /** The exposition text and its content type. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() }
  }
}
