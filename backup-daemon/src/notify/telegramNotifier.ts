/**
 * @module notify/telegramNotifier
 * Sends a short run summary through the Telegram Bot API (`POST {apiBase}/bot<token>/sendMessage`,
 * HTML parse mode, like the original's message). The bot token is the secret of the URL: it never
 * reaches a label or a log line, and any error text that could carry it (fetch errors quote the URL)
 * has it replaced by "[redacted]".
 */
import type { TelegramNotifyConfig } from '../config/types.js'
import type { Notifier, RunReport } from './types.js'
import { wantsEvent } from './webhookNotifier.js'

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/** The message text: status, job, duration, snapshot or error (HTML, the Bot API's `parse_mode`). */
export function telegramText(report: RunReport): string {
  const what = report.kind === 'drill' ? 'Restore drill' : 'Backup'
  const head = report.status === 'success' ? `✅ <b>${what} OK</b>` : report.status === 'cancelled' ? `⚠️ <b>${what} CANCELLED</b>` : `❌ <b>${what} FAILED</b>`
  const lines = [
    head,
    `<b>Job:</b> <code>${escapeHtml(report.job)}</code>`,
    `<b>Host:</b> ${escapeHtml(report.host)}`,
    `<b>Duration:</b> ${escapeHtml(report.duration)}`,
  ]
  if (report.snapshot) lines.push(`<b>Snapshot:</b> <code>${escapeHtml(report.snapshot.name)}</code> (${report.snapshot.size} bytes)`)
  // Telegram refuses messages over 4096 characters: the error's head is what matters.
  if (report.error) lines.push('', '<b>Error:</b>', `<pre>${escapeHtml(report.error.slice(0, 3000))}</pre>`)
  return lines.join('\n')
}

export function telegramNotifier(config: TelegramNotifyConfig, index: number): Notifier {
  const hide = (text: string) => text.split(config.botToken).join('[redacted]')
  return {
    label: `notify[${index}]${config.name ? ` "${config.name}"` : ''} telegram chat ${config.chatId}`,
    wants: (report) => wantsEvent(config.on, report),
    async send(report) {
      let response: Response
      try {
        response = await fetch(`${config.apiBase}/bot${config.botToken}/sendMessage`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'backup-daemon' },
          body: JSON.stringify({ chat_id: config.chatId, text: telegramText(report), parse_mode: 'HTML', link_preview_options: { is_disabled: true } }),
          signal: AbortSignal.timeout(config.timeout),
          redirect: 'error',
        })
      } catch (err) {
        const cause = (err as { cause?: { message?: string } }).cause?.message
        // No `cause`: the original error may quote the URL, which holds the token.
        // eslint-disable-next-line preserve-caught-error
        throw new Error(hide(`${(err as Error).message}${cause ? ` (${cause})` : ''}`))
      }
      const body = await response.text().catch(() => '')
      if (response.ok) return
      // The Bot API explains refusals in `description` ("chat not found"); it never echoes the token, but be sure.
      let description = ''
      try {
        description = String((JSON.parse(body) as { description?: unknown }).description ?? '')
      } catch {
        // Not JSON (a proxy's error page): the status says enough.
      }
      throw new Error(hide(`HTTP ${response.status}${description ? `: ${description.slice(0, 200)}` : ''}`))
    },
  }
}
