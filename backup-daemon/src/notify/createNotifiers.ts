/**
 * @module notify/createNotifiers
 * A job's notifiers from its `notify` entries (webhook, email, telegram), and `notifyAll`, which tells every interested one about
 * a run and logs failures (with the notifier's label, never its URL or password) without ever throwing:
 * a broken mail server must not turn a good backup into a failed one.
 */
import type { NotifyConfig } from '../config/types.js'
import { emailNotifier } from './emailNotifier.js'
import { telegramNotifier } from './telegramNotifier.js'
import type { Notifier, RunReport } from './types.js'
import { webhookNotifier } from './webhookNotifier.js'

function createNotifier(entry: NotifyConfig, index: number): Notifier {
  switch (entry.type) {
    case 'webhook':
      return webhookNotifier(entry, index)
    case 'email':
      return emailNotifier(entry, index)
    case 'telegram':
      return telegramNotifier(entry, index)
  }
}

/** `on: []` (the original's `onSuccess: false, onFailure: false`) is a notifier switched off: none is built. */
export function createNotifiers(entries: NotifyConfig[] | undefined): Notifier[] {
  return (entries ?? []).flatMap((entry, index) => (entry.on.length > 0 ? [createNotifier(entry, index)] : []))
}

export async function notifyAll(notifiers: Notifier[], report: RunReport, log: (level: 'info' | 'warn', message: string) => void): Promise<void> {
  await Promise.all(
    notifiers
      .filter((notifier) => notifier.wants(report))
      .map(async (notifier) => {
        try {
          await notifier.send(report)
          log('info', `${notifier.label}: sent (${report.status})`)
        } catch (err) {
          const message = err instanceof Error ? err.message : String(err)
          log('warn', `${notifier.label}: failed: ${message}`)
        }
      }),
  )
}
