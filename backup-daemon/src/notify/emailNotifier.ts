/**
 * @module notify/emailNotifier
 * Sends the run report by SMTP with nodemailer (imported on first use: most daemons never mail). The
 * subject says job and status; the text body lists the report's facts, the JSON is attached inline.
 */
import type { EmailNotifyConfig } from '../config/types.js'
import type { Notifier, RunReport } from './types.js'
import { wantsEvent } from './webhookNotifier.js'

export function subjectOf(report: RunReport): string {
  return `[backup-daemon] ${report.job}: ${report.kind === 'drill' ? 'restore drill ' : ''}${report.status}${report.status === 'success' ? '' : ` (${report.error.slice(0, 120)})`}`
}

export function textOf(report: RunReport): string {
  const lines = [
    `job:      ${report.job}`,
    ...(report.kind === 'drill' ? ['what:     restore drill (the newest snapshot restored into scratch and compared with its record)'] : []),
    `status:   ${report.status}`,
    `host:     ${report.host}`,
    `started:  ${report.startedAt}`,
    `finished: ${report.finishedAt} (${report.duration})`,
  ]
  if (report.error) lines.push(`error:    ${report.error}`)
  if (report.snapshot) {
    const { name, size, sha256, parts, storages, references = [] } = report.snapshot
    lines.push(`snapshot: ${name}`, `size:     ${size} bytes in ${parts} part(s)`)
    // A line only for a checksum there is (a restic run has none of its whole tar; its commit's id says which run it is).
    if (sha256) lines.push(`sha256:   ${sha256}`)
    for (const { label, id } of references) lines.push(`${label}: ${id}`)
    lines.push(`storages: ${storages.join(', ')}`)
  }
  return `${lines.join('\n')}\n\n${JSON.stringify(report, null, 2)}\n`
}

export function emailNotifier(config: EmailNotifyConfig, index: number): Notifier {
  return {
    label: `notify[${index}]${config.name ? ` "${config.name}"` : ''} email via ${config.smtp.host}:${config.smtp.port}`,
    wants: (report) => wantsEvent(config.on, report),
    async send(report) {
      const { createTransport } = await import('nodemailer')
      const { smtp } = config
      const transport = createTransport({
        host: smtp.host,
        port: smtp.port,
        secure: smtp.secure,
        ...(smtp.username !== undefined && { auth: { user: smtp.username, pass: smtp.password ?? '' } }),
        connectionTimeout: config.timeout,
        greetingTimeout: config.timeout,
        socketTimeout: config.timeout,
      })
      try {
        await transport.sendMail({ from: config.from, to: config.to, subject: subjectOf(report), text: textOf(report) })
      } finally {
        transport.close()
      }
    },
  }
}
