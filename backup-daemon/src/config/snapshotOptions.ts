/**
 * @module config/snapshotOptions
 * Schemas of what a job does around its snapshot: compression (a plain string, the original's
 * aliases mapped by `config/snaprAliases.ts`, or `{type, level}`), encryption (age, or the original's
 * openssl), splitting (`1GB`-style sizes), time-bucketed retention and run notifications. Kept apart
 * from `config/schema.ts` so the job schema stays readable.
 */
import { z } from 'zod'
import { opensslCiphers } from './opensslCiphers.js'
import { parseSize } from './parseSize.js'

const compressionType = z.enum(['tar', 'tar.gz', 'tar.zst', 'tar.xz', 'zip'])

/** Levels each compressor accepts (zstd's 20-22 need `--ultra` and hundreds of MiB: left out). */
export const compressionLevels = {
  'tar.gz': { min: 1, max: 9, default: 6 },
  'tar.zst': { min: 1, max: 19, default: 3 },
  'tar.xz': { min: 0, max: 9, default: 6 },
} as const

/** `tar.gz`, or `{ type: tar.zst, level: 10 }`. */
export const compressionSchema = z.union([
  compressionType,
  z.strictObject({ type: compressionType, level: z.int().optional() }).superRefine((value, ctx) => {
    if (value.level === undefined) return
    if (value.type === 'tar' || value.type === 'zip') {
      ctx.addIssue({ code: 'custom', path: ['level'], message: `${value.type} has no compression level setting` })
      return
    }
    const { min, max } = compressionLevels[value.type]
    if (value.level < min || value.level > max) ctx.addIssue({ code: 'custom', path: ['level'], message: `${value.type} level must be ${min} to ${max}` })
  }),
])

/** age (age-encryption.org/v1): one scrypt passphrase, or X25519 recipients (`age1...`). */
const ageSchema = z
  .strictObject({
    type: z.literal('age'),
    passphrase: z.string().min(1).optional(),
    /** DESIGN.md's name for the passphrase; accepted as an alias. */
    password: z.string().min(1).optional(),
    recipients: z
      .array(z.string().regex(/^age1[0-9a-z]+$/, 'expected an age recipient ("age1...", from age-keygen)'))
      .min(1)
      .optional(),
  })
  .superRefine((value, ctx) => {
    const secrets = [value.passphrase, value.password].filter((v) => v !== undefined).length
    if (secrets > 1) ctx.addIssue({ code: 'custom', path: ['password'], message: 'set passphrase or password, not both' })
    if (secrets === 0 && !value.recipients) ctx.addIssue({ code: 'custom', path: [], message: 'set passphrase (e.g. env:BACKUP_PASSPHRASE) or recipients' })
    if (secrets > 0 && value.recipients)
      ctx.addIssue({ code: 'custom', path: ['recipients'], message: 'age encrypts to a passphrase or to recipients, not both' })
  })

/** The original's `openssl enc -<cipher> -salt -pbkdf2`; `type` is filled in by the alias step when left out. */
const opensslSchema = z.strictObject({
  type: z.literal('openssl'),
  cipher: z
    .string()
    .default('aes-256-cbc')
    .refine((cipher) => (opensslCiphers as readonly string[]).includes(cipher), { message: `unsupported cipher; supported: ${opensslCiphers.join(', ')}` })
    .transform((cipher) => cipher as (typeof opensslCiphers)[number]),
  password: z.string().min(1),
})

export const encryptionSchema = z.discriminatedUnion('type', [ageSchema, opensslSchema])

/** `split.chunkSize`: bytes, or the original's `1GB`-style string. */
export const splitSchema = z.strictObject({
  chunkSize: z.union([z.string(), z.number()]).transform((value, ctx) => {
    const bytes = parseSize(value)
    if (typeof bytes !== 'number') {
      ctx.addIssue({ code: 'custom', message: bytes.error })
      return z.NEVER
    }
    if (bytes < 1024) {
      ctx.addIssue({ code: 'custom', message: 'chunkSize must be at least 1024 bytes' })
      return z.NEVER
    }
    return bytes
  }),
})

export const retentionSchema = z.strictObject({
  /** The newest N snapshots. */
  last: z.int().min(1).optional(),
  /** The newest snapshot of each of the last N days that have one (UTC days). */
  daily: z.int().min(1).optional(),
  /** The newest snapshot of each of the last N ISO weeks that have one. */
  weekly: z.int().min(1).optional(),
  /** The newest snapshot of each of the last N months that have one. */
  monthly: z.int().min(1).optional(),
})

/**
 * `[]` is "off" (what the original's `onSuccess: false, onFailure: false` maps to). `failure` also hears a failed
 * restore drill; `drill-success` / `drill-failure` name drills alone (`notify/webhookNotifier.wantsEvent`).
 */
const eventNames = ['success', 'failure', 'drill-success', 'drill-failure'] as const
const events = z.array(z.enum(eventNames)).default(['failure'])

const httpUrl = z.string().regex(/^https?:\/\/[^\s]+$/, 'expected an http:// or https:// URL')

const common = {
  /** A label (the original's `name`). */
  name: z.string().min(1).optional(),
  on: events,
  /** Milliseconds before the request is given up. */
  timeout: z.int().min(100).max(300_000).default(10_000),
}

export const webhookSchema = z.strictObject({
  type: z.literal('webhook'),
  ...common,
  url: httpUrl,
  method: z
    .string()
    .default('POST')
    .transform((m) => m.toUpperCase())
    .pipe(z.enum(['POST', 'PUT', 'PATCH'], { message: 'method must be POST, PUT or PATCH (the report is sent as a JSON body)' })),
  headers: z.record(z.string(), z.string()).default({}),
})

export const emailSchema = z.strictObject({
  type: z.literal('email'),
  ...common,
  smtp: z.strictObject({
    host: z.string().min(1),
    port: z.int().min(1).max(65535).default(587),
    /** TLS from the start (port 465); otherwise STARTTLS when the server offers it. */
    secure: z.boolean().default(false),
    username: z.string().optional(),
    password: z.string().optional(),
  }),
  from: z.string().min(3),
  to: z.union([z.string().min(3), z.array(z.string().min(3)).min(1)]),
})

export const telegramSchema = z.strictObject({
  type: z.literal('telegram'),
  ...common,
  botToken: z.string().regex(/^[^\s/]+$/, 'expected a bot token (no spaces or slashes)'),
  chatId: z.union([z.string().min(1), z.int()]).transform(String),
  apiBase: httpUrl.default('https://api.telegram.org').transform((url) => url.replace(/\/+$/, '')),
})

export const healthchecksSchema = z.strictObject({
  type: z.literal('healthchecks'),
  ...common,
  // A check that hears only failures would raise "down" after every good run: both by default.
  on: z.array(z.enum(eventNames)).default(['success', 'failure']),
  url: httpUrl,
})

export const notifySchema = z.discriminatedUnion('type', [webhookSchema, emailSchema, telegramSchema, healthchecksSchema])
