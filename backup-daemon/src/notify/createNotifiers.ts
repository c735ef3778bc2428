/**
 * @module notify/createNotifiers
 * A job's notifiers from its `notify` entries (webhook, email, telegram, healthchecks), `notifyStarted`,
 * and `notifyAll`, which tells every interested one about a run and logs failures (with the notifier's
 * label, never its URL or password) without ever throwing: a broken mail server must not turn a good backup into a failed one.
 */
import type { NotifyConfig } from '../config/types.js'
import { emailNotifier } from './emailNotifier.js'
import { healthchecksNotifier } from './healthchecksNotifier.js'
import { telegramNotifier } from './telegramNotifier.js'
import type { Notifier, RunContext, RunReport } from './types.js'
import { webhookNotifier } from './webhookNotifier.js'

function createNotifier(entry: NotifyConfig, index: number): Notifier {
  switch (entry.type) {
    case 'webhook':
      return webhookNotifier(entry, index)
    case 'email':
      return emailNotifier(entry, index)
    case 'telegram':
      return telegramNotifier(entry, index)
    case 'healthchecks':
      return healthchecksNotifier(entry, index)
  }
}

/** `on: []` (the original's `onSuccess: false, onFailure: false`) is a notifier switched off: none is built. */
export function createNotifiers(entries: NotifyConfig[] | undefined): Notifier[] {
  return (entries ?? []).flatMap((entry, index) => (entry.on.length > 0 ? [createNotifier(entry, index)] : []))
}

type NotifyLog = (level: 'info' | 'warn', message: string) => void

/** Tells the notifiers that listen for run starts (healthchecks); like `notifyAll`, logs failures and never rejects. */
export async function notifyStarted(notifiers: Notifier[], job: string, log: NotifyLog): Promise<void> {
  await Promise.all(
    notifiers.map(async (notifier) => {
      if (!notifier.started) return
      try {
        await notifier.started(job)
        log('info', `${notifier.label}: sent (start)`)
      } catch (err) {
        log('warn', `${notifier.label}: failed: ${err instanceof Error ? err.message : String(err)}`)
      }
    }),
  )
}

export async function notifyAll(notifiers: Notifier[], report: RunReport, log: NotifyLog, context?: RunContext): Promise<void> {
  await Promise.all(
    notifiers
      .filter((notifier) => notifier.wants(report))
      .map(async (notifier) => {
        try {
          await notifier.send(report, context)
          log('info', `${notifier.label}: sent (${report.status})`)
        } catch (err) {
          const message = err instanceof Error ? err.message : String(err)
          log('warn', `${notifier.label}: failed: ${message}`)
        }
      }),
  )
}
