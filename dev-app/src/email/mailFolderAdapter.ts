/**
 * @module email/mailFolderAdapter
 * The dev-app's email: no mail server, so every message (a password reset, a verification) is written
 * as an HTML file to the data folder's `mail/` and its recipient, subject and file are logged. Payload's
 * built-in fallback logs the subject only (not the link a reset needs) and warns once per process that
 * no adapter is configured, twice per `npm start` (the seed step and the CMS).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type { PayloadEmailAdapter, SendEmailOptions } from 'payload'

type Recipient = SendEmailOptions['to']

/** `to` as Nodemailer takes it (a string, an address object, or lists of them) as one line. */
function addresses(to: Recipient | Recipient[]): string {
  if (!to) return ''
  if (Array.isArray(to)) return to.map((entry) => addresses(entry as Recipient)).join(', ')
  return typeof to === 'string' ? to : (to.address ?? '')
}

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/** A file name that sorts by time and says what the mail is. */
const fileName = (subject: string) =>
  `${new Date().toISOString().replace(/[:.]/g, '-')}-${
    subject
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 60) || 'mail'
  }.html`

/** Writes each message to `<folder>/<time>-<subject>.html`. */
export const mailFolderAdapter =
  (folder: string): PayloadEmailAdapter =>
  ({ payload }) => ({
    name: 'dev-app-mail-folder',
    defaultFromAddress: 'cms@dev-app.localhost',
    defaultFromName: 'Hosted-media dev-app',
    sendEmail: async (message) => {
      mkdirSync(folder, { recursive: true })
      const subject = String(message.subject ?? '')
      const file = path.join(folder, fileName(subject))
      const body = typeof message.html === 'string' ? message.html : typeof message.text === 'string' ? `<pre>${escapeHtml(message.text)}</pre>` : ''
      writeFileSync(file, `<!-- To: ${addresses(message.to)} | Subject: ${subject} -->\n${body}\n`)
      payload.logger.info(`email to ${addresses(message.to)}: "${subject}", written to ${file}`)
    },
  })
