/**
 * @module notify/webhookNotifier
 * POSTs (or `method`) the run report as JSON to a URL with the configured headers (userinfo in the URL as
 * `Authorization: Basic`, `notifierRequest`); any non-2xx answer or a timeout is a failure (logged by the
 * engine without the URL's path or query, never failing the backup).
 */
import type { WebhookNotifyConfig } from '../config/types.js'
import { describeFetchFailure, notifierRequest, withAuthorization } from './notifierRequest.js'
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
  // `user:pass@` in the URL goes as `Authorization: Basic` (fetch refuses such a URL).
  const { url, authorization } = notifierRequest(config.url)
  const headers = withAuthorization({ 'content-type': 'application/json', 'user-agent': 'backup-daemon', ...config.headers }, authorization)
  return {
    label: `notify[${index}]${config.name ? ` "${config.name}"` : ''} webhook ${host}`,
    wants: (report) => wantsEvent(config.on, report),
    async send(report) {
      const response = await fetch(url, {
        method: config.method,
        headers,
        body: JSON.stringify(report),
        signal: AbortSignal.timeout(config.timeout),
        redirect: 'error',
      }).catch((err: unknown) => {
        // The path and query are the secret of many webhook services: the failure names the cause only.
        throw new Error(describeFetchFailure(err, url, config.timeout))
      })
      // Drain the body so the connection can be reused; its text is not ours to log (it may echo secrets).
      await response.arrayBuffer().catch(() => undefined)
      if (!response.ok) throw new Error(`HTTP ${response.status}`)
    },
  }
}
