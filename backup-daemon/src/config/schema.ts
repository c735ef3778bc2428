/**
 * @module config/schema
 * The zod schema of the YAML file (keys mirror the original service's `snapr.yaml`) with every default
 * DESIGN.md names. Source and storage entries come from the registries, so a new type brings its own
 * schema. Cross-field rules (unique names, cron syntax) are refinements with the path of the culprit.
 */
import { Cron } from 'croner'
import { z } from 'zod'
import { sourceFactories } from '../sources/all.js'
import { storageFactories } from '../storages/all.js'
import { cmsCheckSchema } from './cmsCheckConfig.js'
import { restoreConfigSchema } from './restoreConfig.js'
import { compressionSchema, encryptionSchema, notifySchema, retentionSchema, splitSchema } from './snapshotOptions.js'

const union = (schemas: z.ZodObject[], what: string) => {
  const [first, ...rest] = schemas
  if (!first) throw new Error(`no ${what} types registered`)
  return rest.length === 0 ? first : z.discriminatedUnion('type', [first, ...rest])
}

/** Every storage type gets `includeJobName` (the original's key) without declaring it. */
const withStorageCommon = (schema: z.ZodObject) => schema.extend({ includeJobName: z.boolean().default(true) })

/** Names that end up in file names and URLs. */
/** What a job name may be; also the `pattern` of the API's `{name}` path parameter. */
export const jobNamePattern = /^[A-Za-z0-9][A-Za-z0-9._-]*$/
const jobName = z.string().regex(jobNamePattern, 'use letters, digits, ".", "_" and "-" (the name is used in file names and URLs)')

export function validCron(schedule: string, timezone: string | undefined): string | undefined {
  try {
    new Cron(schedule, { paused: true, timezone })
    return undefined
  } catch (err) {
    return (err as Error).message
  }
}

const job = z.strictObject({
  name: jobName,
  /** Cron expression; empty means "manual runs only". */
  schedule: z.string().default(''),
  timezone: z.string().min(1).optional(),
  active: z.boolean().default(true),
  /** The original's default: plain tar. */
  compression: compressionSchema.default('tar'),
  encryption: encryptionSchema.optional(),
  sources: z
    .array(
      union(
        sourceFactories.map((f) => f.configSchema),
        'source',
      ),
    )
    .min(1),
  storages: z
    .array(
      union(
        storageFactories.map((f) => withStorageCommon(f.configSchema)),
        'storage',
      ),
    )
    .min(1),
  /** A storage `name` of this job (checked in `crossChecks`). */
  defaultStorage: z.string().min(1).optional(),
  retention: retentionSchema.optional(),
  split: splitSchema.optional(),
  beforeScript: z.string().optional(),
  afterScript: z.string().optional(),
  notify: z.array(notifySchema).default([]),
  /**
   * Restore drills: on a schedule of their own when `schedule` is set (`daemon/drillSchedule.ts`); `storage`:
   * only that one (checked in `crossChecks`); `databaseServer`: where a database dump is restored to be
   * checked, a scratch database on the source's own server (`configured`) or a temporary server the drill
   * starts from the installed binaries (`temporary`); `cms`: the job-level check of a Payload CMS's documents
   * against the restored files and videos (`config/cmsCheckConfig.ts`, `restore/drill/cmsCheck.ts`).
   */
  drill: z
    .strictObject({
      schedule: z.string().min(1).optional(),
      storage: z.string().min(1).optional(),
      databaseServer: z.enum(['configured', 'temporary']).default('configured'),
      cms: cmsCheckSchema.optional(),
    })
    .optional(),
})

export function validTimezone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone })
    return true
  } catch {
    return false
  }
}

const cookies = z.strictObject({
  secure: z.boolean().default(false),
  /** The original's lowercase `lax|strict|none` is capitalised by the alias step. */
  sameSite: z.enum(['Strict', 'Lax', 'None']).default('Lax'),
  domain: z.string().min(1).optional(),
})

const auth = z.strictObject({
  enabled: z.boolean().default(true),
  username: z.string().default('admin'),
  password: z.string().default(''),
  tokenExpiration: z.int().min(1).default(30),
  cookies: cookies.default({ secure: false, sameSite: 'Lax' }),
  /** Origins (`https://backup.example.com`) besides the daemon's own allowed to send state-changing requests. */
  allowedOrigins: z.array(z.string().regex(/^https?:\/\/[^/\s]+$/, 'expected an origin: scheme://host[:port], no path')).default([]),
})

/** The default listening address: loopback only. */
export const defaultAddress = '127.0.0.1:8080'

const server = z.strictObject({
  /** false: scheduler only, no listener. */
  enabled: z.boolean().default(true),
  defaultLanguage: z.enum(['en', 'ru']).default('en'),
  address: z
    .string()
    .regex(/^(\[[0-9a-fA-F:]+\]|[^:\s]*):\d{1,5}$/, 'expected "host:port", e.g. "127.0.0.1:8080"')
    // Loopback, not the original's 0.0.0.0: a file without `server` must not open an unauthenticated API
    // to the network (README "Security").
    .default(defaultAddress),
  /** Serve without login on an address beyond loopback (refused unless set; see `unauthenticatedBeyondLoopback`). */
  allowUnauthenticated: z.boolean().default(false),
  secret: z.string().default(''),
  auth: auth.optional(),
  permissions: z
    .strictObject({
      allowManualRun: z.boolean().default(true),
      allowBackupDownload: z.boolean().default(true),
      showConfig: z.boolean().default(true),
      /** Restore and verify from the API and UI (see `restore`). */
      allowRestore: z.boolean().default(false),
    })
    .default({ allowManualRun: true, allowBackupDownload: true, showConfig: true, allowRestore: false }),
  ui: z.strictObject({ enabled: z.boolean().default(true) }).default({ enabled: true }),
  /** Prometheus text at `GET /metrics` (behind the session when auth is on). */
  metrics: z.strictObject({ enabled: z.boolean().default(true) }).default({ enabled: true }),
})

/** The original's default number of lines kept and shown per log. */
export const defaultLogLimit = 10_000
const logLimit = z
  .int()
  .min(0)
  .default(defaultLogLimit)
  .transform((n) => n || defaultLogLimit)

export const configSchema = z
  .strictObject({
    dataDir: z.string().min(1).default('./data'),
    server: server.default({
      enabled: true,
      defaultLanguage: 'en',
      address: defaultAddress,
      allowUnauthenticated: false,
      secret: '',
      permissions: { allowManualRun: true, allowBackupDownload: true, showConfig: true, allowRestore: false },
      ui: { enabled: true },
      metrics: { enabled: true },
    }),
    logs: z
      .strictObject({
        system: z.boolean().default(true),
        perJob: z.boolean().default(true),
        /** The original's `logs.path` (mapped by the alias step). */
        directory: z.string().min(1).optional(),
        maxSizeMB: z.int().min(0).default(100),
        maxBackups: z.int().min(0).default(7),
        maxAgeDays: z.int().min(0).default(30),
        compress: z.boolean().default(true),
      })
      .default({ system: true, perJob: true, maxSizeMB: 100, maxBackups: 7, maxAgeDays: 30, compress: true }),
    /** Also the original's `server.logLimits` (moved here by the alias step). 0 = the default. */
    logLimits: z.strictObject({ jobLogs: logLimit, systemLogs: logLimit }).default({ jobLogs: defaultLogLimit, systemLogs: defaultLogLimit }),
    history: z.strictObject({ limit: z.int().min(1).max(10_000).default(100) }).default({ limit: 100 }),
    jobs: z.array(job).default([]),
    restore: restoreConfigSchema.default({ roots: [], databases: {} }),
  })
  .superRefine((value, ctx) => {
    const login = value.server.auth
    if (login?.enabled && (!login.username || !login.password)) {
      ctx.addIssue({
        code: 'custom',
        path: ['server', 'auth'],
        message: 'auth is enabled: set username and password (a hash from `backup-daemon hash-password`)',
      })
    }
    const open = unauthenticatedBeyondLoopback(value.server)
    if (open) ctx.addIssue({ code: 'custom', path: ['server', 'address'], message: open })
  })

/** A reason to refuse serving without login on `address`, or undefined when it is fine. */
export function unauthenticatedBeyondLoopback(server: {
  enabled: boolean
  address: string
  allowUnauthenticated: boolean
  auth?: { enabled: boolean }
}): string | undefined {
  if (!server.enabled || server.auth?.enabled || server.allowUnauthenticated || isLoopbackAddress(server.address)) return undefined
  return `listening on ${server.address} (beyond loopback) without login: enable server.auth, listen on 127.0.0.1, or set server.allowUnauthenticated: true`
}

/** `127.x.y.z`, `localhost` or `[::1]`; an empty host (every interface) is not. */
export function isLoopbackAddress(address: string): boolean {
  const host = address
    .slice(0, address.lastIndexOf(':'))
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) || /^::ffff:127\./.test(host)
}

export type ParsedConfig = z.output<typeof configSchema>
