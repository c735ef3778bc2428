/** @jsxImportSource preact */
/**
 * @module ui/app/pages/SystemPage
 * The daemon itself: status, version, uptime and job count (`GET /status`, refreshed every 10 s), and
 * its own log (start-up, schedules, refused logins) in the live log viewer.
 */
import { useState } from 'preact/hooks'
import { formatUptime } from '../../lib/formatUptime.js'
import { api, ApiError, SYSTEM_LOG_SOURCE, type Settings, type SystemStatus } from '../api.js'
import { useInterval } from '../components/useInterval.js'
import { LogViewer } from '../log/LogViewer.js'

export function SystemPage({ settings }: { settings: Settings }) {
  const [status, setStatus] = useState<SystemStatus>()
  const [error, setError] = useState<string>()

  useInterval(() => {
    api.status().then(
      (s) => {
        setStatus(s)
        setError(undefined)
      },
      (err: unknown) => {
        if (err instanceof ApiError && err.status === 401) return
        setError(err instanceof Error ? err.message : String(err))
      },
    )
  }, 10_000)

  const ok = status?.status === 'ok'
  return (
    <main id="main" tabIndex={-1} class="page">
      <h1>System</h1>
      {error && (
        <p class="alert error" role="alert">
          {error}
        </p>
      )}
      <section class="card" aria-label="Daemon status">
        <dl class="facts system-facts">
          <div>
            <dt>Status</dt>
            <dd data-fact="status">
              {status ? <span class={`badge ${ok ? 'status-running' : 'status-failed'}`}>{ok ? 'ok' : status.status || 'unknown'}</span> : '…'}
            </dd>
          </div>
          <div>
            <dt>Version</dt>
            <dd data-fact="version">{status?.version ?? '—'}</dd>
          </div>
          <div>
            <dt>Uptime</dt>
            <dd data-fact="uptime" title={status?.startedAt ? `since ${new Date(status.startedAt).toLocaleString()}` : undefined}>
              {status?.uptime !== undefined ? formatUptime(status.uptime) : '—'}
            </dd>
          </div>
          <div>
            <dt>Jobs</dt>
            <dd data-fact="jobs">
              {status?.jobsCount ?? '—'}
              {status?.jobs && status.jobs.running + status.jobs.cancelling > 0 && (
                <span class="muted"> ({status.jobs.running + status.jobs.cancelling} running)</span>
              )}
            </dd>
          </div>
        </dl>
      </section>
      <h2>System log</h2>
      {settings.logs.system ? (
        <LogViewer source={SYSTEM_LOG_SOURCE} label="System log" maxTail={settings.logLimits.systemLogs} />
      ) : (
        <p class="alert info">The system log is switched off in this daemon's configuration (logs.system).</p>
      )}
    </main>
  )
}
