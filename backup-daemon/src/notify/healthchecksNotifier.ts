/**
 * @module notify/healthchecksNotifier
 * Pings a healthchecks.io check (or a self-hosted Healthchecks) in its protocol: `<url>/start` when a
 * run starts, `<url>` when it succeeds, `<url>/fail` when it fails or is cancelled, the last lines of the
 * run's log as the body of the final ping. Healthchecks then raises its own alert when a ping is late,
 * which catches what no notifier of ours can: a daemon that is down or a schedule that never fires.
 *
 * The ping URL is the check's credential (anyone holding it can report success): it appears only in
 * the request, never in labels, log lines, errors or the config view (`hasUrl` and `urlHost` there).
 * A run id (`rid`, healthchecks' own parameter) pairs each start with its end, so runs of two daemons
 * pinging one check are measured apart.
 */
import { randomUUID } from 'node:crypto'
import type { HealthchecksNotifyConfig } from '../config/types.js'
import { stripAnsi } from '../logs/formatLine.js'
import { describeFetchFailure, notifierRequest, withAuthorization } from './notifierRequest.js'
import type { Notifier, RunContext, RunReport } from './types.js'
import { wantsEvent } from './webhookNotifier.js'

/** Healthchecks stores at most 100 kB of a ping's body (its PING_BODY_LIMIT default); the newest lines are kept. */
export const maxPingBody = 100_000

/** The tail of `lines`, without colours, at most `limit` bytes of UTF-8, cut at a line boundary. */
export function pingBody(lines: string[], limit = maxPingBody): string {
  const kept: string[] = []
  let size = 0
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = stripAnsi(lines[i]!)
    const bytes = Buffer.byteLength(line) + 1
    if (size + bytes > limit) break
    kept.unshift(line)
    size += bytes
  }
  return kept.length ? `${kept.join('\n')}\n` : ''
}

export function healthchecksNotifier(config: HealthchecksNotifyConfig, index: number): Notifier {
  // A self-hosted Healthchecks behind basic auth: `user:pass@` goes as `Authorization` (fetch refuses such a URL).
  const { url, authorization } = notifierRequest(config.url)
  const base = url.replace(/\/+$/, '')
  const headers = withAuthorization({ 'content-type': 'text/plain; charset=utf-8', 'user-agent': 'backup-daemon' }, authorization)
  /** The run id of the run in progress, per job (one notifier serves one job; a job never runs twice at once). */
  let runId = ''
  const ping = async (suffix: '' | '/start' | '/fail', body: string) => {
    const pingUrl = `${base}${suffix}?rid=${runId}`
    const response = await fetch(pingUrl, {
      method: 'POST',
      headers,
      body,
      signal: AbortSignal.timeout(config.timeout),
      redirect: 'error',
    }).catch((err: unknown) => {
      throw new Error(describeFetchFailure(err, pingUrl, config.timeout))
    })
    await response.arrayBuffer().catch(() => undefined)
    if (!response.ok) throw new Error(`HTTP ${response.status}`)
  }
  return {
    label: `notify[${index}]${config.name ? ` "${config.name}"` : ''} healthchecks ${new URL(base).host}`,
    // Its pings are the backup's heartbeat: a drill pings only where `on` names drills.
    wants: (report) => wantsEvent(config.on, report, { failureHearsDrills: false }),
    async started() {
      runId = randomUUID()
      await ping('/start', '')
    },
    async send(report: RunReport, context?: RunContext) {
      if (!runId) runId = randomUUID()
      // The run's own lines end with its outcome ("run succeeded in …" / "run failed after …: <error>").
      const body = pingBody(context?.logLines ?? [])
      try {
        await ping(report.status === 'success' ? '' : '/fail', body)
      } finally {
        runId = ''
      }
    },
  }
}
