/** @jsxImportSource preact */
/**
 * @module ui/app/pages/SystemLogPage
 * The daemon's own log (start-up, schedules, refused logins) in the live log viewer.
 */
import { SYSTEM_LOG_SOURCE, type Settings } from '../api.js'
import { LogViewer } from '../log/LogViewer.js'

export function SystemLogPage({ settings }: { settings: Settings }) {
  return (
    <main id="main" tabIndex={-1} class="page">
      <h1>System log</h1>
      {settings.logs.system ? (
        <LogViewer source={SYSTEM_LOG_SOURCE} label="System log" maxTail={settings.logLimits.systemLogs} />
      ) : (
        <p class="alert info">The system log is switched off in this daemon's configuration (logs.system).</p>
      )}
    </main>
  )
}
