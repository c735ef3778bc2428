/** @jsxImportSource preact */
/**
 * @module ui/app/pages/SystemLogPage
 * The daemon's own log (start-up, schedules, refused logins) in the live log viewer.
 */
import { SYSTEM_STREAM_URL, type Settings } from '../api.js'
import { LogViewer } from '../log/LogViewer.js'

export function SystemLogPage({ settings }: { settings: Settings }) {
  return (
    <main id="main" class="page">
      <h1>System log</h1>
      {settings.logs.system ? (
        <LogViewer url={SYSTEM_STREAM_URL} label="System log" maxTail={settings.logLimits.systemLogs} />
      ) : (
        <p class="alert info">The system log is switched off in this daemon's configuration (logs.system).</p>
      )}
    </main>
  )
}
