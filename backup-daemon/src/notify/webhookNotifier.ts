/**
 * @module notify/webhookNotifier
 * POSTs (or `method`) the run report as JSON to a URL with the configured headers; any non-2xx answer or a timeout
 * is a failure (logged by the engine, never failing the backup).
 */
import type { WebhookNotifyConfig } from '../config/types.js'
import type { Notifier, RunReport } from './types.js'

/**
 * Whether a notifier listening for `on` is told of `report`. A drill: `drill-success` hears a proven one;
 * `drill-failure` (and `failure`, unless `failureHearsDrills` is false: healthchecks) a failed one; never a cancelled one.
 */
export const wantsEvent = (on: string[], report: RunReport, { failureHearsDrills = true } = {}): boolean => {
  if (report.kind === 'drill') {
    if (report.status === 'success') return on.includes('drill-success')
    return report.status === 'failure' && (on.includes('drill-failure') || (failureHearsDrills && on.includes('failure')))
  }
  return on.includes(report.status === 'success' ? 'success' : 'failure')
}

export function webhookNotifier(config: WebhookNotifyConfig, index: number): Notifier {
  const host = new URL(config.url).host
  return {
    label: `notify[${index}]${config.name ? ` "${config.name}"` : ''} webhook ${host}`,
    wants: (report) => wantsEvent(config.on, report),
    async send(report) {
      const response = await fetch(config.url, {
        method: config.method,
        headers: { 'content-type': 'application/json', 'user-agent': 'backup-daemon', ...config.headers },
        body: JSON.stringify(report),
        signal: AbortSignal.timeout(config.timeout),
        redirect: 'error',
      })
      // Drain the body so the connection can be reused; its text is not ours to log (it may echo secrets).
      await response.arrayBuffer().catch(() => undefined)
      if (!response.ok) throw new Error(`HTTP ${response.status}`)
    },
  }
}
