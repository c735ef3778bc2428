/**
 * @module server/schemas
 * The spec's resources as zod schemas (registered as OpenAPI components by name), and the request
 * parameters shared by several routes. Every field the spec names is declared; fields the original
 * service leaves out when empty (a job's `lastResult`, `lastRun`, `nextRun`, and inside `lastResult`
 * `duration` and `error`) are optional here, and the test validates served bodies against these.
 */
import { z } from '@hono/zod-openapi'
import { jobNamePattern } from '../config/schema.js'
import { RunProgressSchema } from './routes/runSchemas.js'

export const ProblemSchema = z
  .object({
    type: z.string().openapi({ example: 'about:blank' }),
    title: z.string().openapi({ example: 'Not Found' }),
    status: z.number().int().openapi({ example: 404 }),
    detail: z.string().openapi({ example: 'job "nightly" not found' }),
    instance: z.string().openapi({ example: '/api/v1/jobs/nightly/status' }),
    errors: z.array(
      z.object({
        location: z.string().openapi({ example: 'query.tail' }),
        message: z.string(),
        value: z.unknown().openapi({ description: 'The value the request carried (null when absent).' }),
      }),
    ),
    error: z.string().openapi({ description: 'The same text as `detail`, for clients that read `{error}` (the original web client).' }),
  })
  .openapi('Problem')

export const LastResultSchema = z
  .object({
    success: z.boolean(),
    duration: z.string().optional().openapi({ description: 'Go-style duration, e.g. "1m2.5s"; left out when unknown' }),
    error: z.string().optional().openapi({ description: 'Why the run failed; left out on success' }),
  })
  .openapi('LastResult', { description: 'How the newest ended run went; a job has none until a run has ended (so a never-run job is not a failed one).' })

const jobStatusValue = z.enum(['idle', 'running']).openapi({ description: 'A run being cancelled is still `running`, with `cancelling: true`.' })
const cancelling = z.literal(true).optional().openapi({ description: 'Present while a cancel of the run in flight is in progress.' })
const lastResult = LastResultSchema.optional()
const lastRun = z.string().optional().openapi({ description: 'RFC 3339 start of the newest run; left out before the first' })
const nextRun = z.string().optional().openapi({ description: 'RFC 3339; left out when the job is inactive or not scheduled' })
const progress = RunProgressSchema.optional()

export const JobSummarySchema = z
  .object({
    active: z.boolean(),
    name: z.string(),
    schedule: z.string(),
    sourcesCount: z.number().int(),
    storagesCount: z.number().int(),
    status: jobStatusValue,
    cancelling,
    lastResult,
    lastRun,
    nextRun,
    progress,
  })
  .openapi('JobSummary')

export const JobListSchema = z.object({ jobs: z.array(JobSummarySchema) }).openapi('JobList')

export const JobStatusSchema = z
  .object({
    active: z.boolean(),
    name: z.string(),
    status: jobStatusValue,
    cancelling,
    lastResult,
    lastRun,
    nextRun,
    progress,
  })
  .openapi('JobStatus')

export const JobConfigSchema = z
  .record(z.string(), z.unknown())
  .openapi('JobConfig', { description: 'The job\'s configuration as loaded, every secret replaced by "[redacted]".' })

export const JobLogSchema = z
  .object({
    job: z.string(),
    logs: z.array(z.string()),
    duration: z.string(),
    endTime: z.string(),
    error: z.string(),
    startTime: z.string(),
    status: z.string().openapi({ description: 'idle | running | cancelling | success | failed | cancelled' }),
  })
  .openapi('JobLog')

export const SystemLogSchema = z.object({ logs: z.array(z.string()) }).openapi('SystemLog')

export const SnapshotSchema = z
  .object({
    id: z.string(),
    name: z.string().openapi({ description: 'File name, or the set ID of a split snapshot; the `{filename}` of the download path.' }),
    jobName: z.string(),
    path: z.string(),
    size: z.number().int(),
    createdAt: z.string(),
    storageType: z.string(),
    isSplit: z.boolean(),
    fullDownloadSupported: z.boolean(),
    partsCount: z.number().int(),
    checksummed: z.boolean().openapi({ description: "false for snapshots without the daemon's sha256 manifest (e.g. the original service's)" }),
    damaged: z.boolean().openapi({ description: 'true when the listing shows the snapshot cannot be whole (e.g. a missing part)' }),
    damageReason: z.string().optional().openapi({ description: 'Present only when `damaged`' }),
    storage: z.string().openapi({ description: 'Name of the storage whose copy is listed and downloaded' }),
    storages: z.array(z.string()).openapi({ description: 'Every storage of the job that holds a copy' }),
  })
  .openapi('Snapshot')

export const SnapshotListSchema = z
  .object({
    backups: z.array(SnapshotSchema).openapi({ description: 'What the storages that answered hold' }),
    job: z.string(),
    storagesDown: z
      .array(z.object({ storage: z.string(), error: z.string(), since: z.string() }))
      .optional()
      .openapi({ description: "The job's storages that did not answer (left out when every one did), each with why and since when" }),
  })
  .openapi('SnapshotList')

export const RunStartedSchema = z.object({ job: z.string(), startedAt: z.string() }).openapi('RunStarted')
export const CancelResultSchema = z.object({ cancelledAt: z.string(), job: z.string() }).openapi('CancelResult')
export const AuthCheckSchema = z.object({ authenticated: z.boolean(), authEnabled: z.boolean() }).openapi('AuthCheck')
export const LoginResultSchema = z.object({ success: z.boolean() }).openapi('LoginResult')
export const LoginRequestSchema = z.object({ username: z.string().min(1).max(256), password: z.string().min(1).max(1024) }).openapi('LoginRequest')

export const SettingsSchema = z
  .object({
    logLimits: z.object({
      jobLogs: z.number().int().openapi({ description: 'Lines kept per job log' }),
      systemLogs: z.number().int().openapi({ description: 'Lines kept in the system log' }),
    }),
    logs: z.object({ perJob: z.boolean(), system: z.boolean() }),
    permissions: z.object({ allowBackupDownload: z.boolean(), allowManualRun: z.boolean(), showConfig: z.boolean(), allowRestore: z.boolean().optional() }),
    defaultLanguage: z.enum(['en', 'ru']).openapi({ description: 'Language a web UI starts in (`server.defaultLanguage`, default `en`)' }),
  })
  .openapi('Settings')

/** The daemon's extra status fields, answered only with a session (or auth off). */
export const DaemonStatusDetailsSchema = z.object({
  version: z.string(),
  environment: z.string().openapi({ description: '`NODE_ENV`, `production` when unset' }),
  startedAt: z.string().openapi({ description: 'RFC 3339 time the server started' }),
  uptimeSeconds: z.number().int(),
  authEnabled: z.boolean(),
  storagesDown: z
    .array(z.object({ job: z.string(), storage: z.string(), error: z.string(), since: z.string() }))
    .openapi({ description: 'Storages whose start-up check failed, until a run of their job succeeds' }),
  jobs: z.object({
    total: z.number().int(),
    active: z.number().int(),
    idle: z.number().int(),
    running: z.number().int(),
    cancelling: z.number().int(),
  }),
})

export const DaemonStatusSchema = z
  .object({
    status: z.literal('ok'),
    uptime: z.number().int().openapi({ description: 'Seconds since the server started' }),
    jobsCount: z.number().int(),
    ...DaemonStatusDetailsSchema.partial().shape,
    version: z.string().openapi({ description: "The daemon's version (public: the original's login page shows it)" }),
  })
  .openapi('DaemonStatus', {
    description:
      'Public: `status`, `uptime`, `jobsCount`, `version` (what the original web client reads before login). With a valid session (or auth off) also `environment`, `startedAt`, `uptimeSeconds`, `authEnabled`, `storagesDown` and `jobs`.',
  })

export const StreamFrameSchema = z
  .object({
    event: z.literal('message'),
    data: z.object({ line: z.string().openapi({ description: 'A rendered log line, may contain ANSI colour codes; "" for a keep-alive.' }) }),
    id: z.number().int().optional(),
    retry: z.number().int().optional(),
  })
  .openapi('StreamFrame')

/** Default, maximum and parsing of `tail` (DESIGN.md: default 100, below 0 is 400, above 50000 capped). */
export const tailDefault = 100
export const tailMax = 50_000

export const TailQuerySchema = z.object({
  // `tail=` (empty) means "not given": coercing '' would give 0 lines instead of the default.
  tail: z
    .preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().min(0).default(tailDefault))
    .transform((n) => Math.min(n, tailMax))
    .openapi({
      // No `maximum`: a larger value is accepted and capped (DESIGN.md), so a schema maximum would call it invalid.
      param: { name: 'tail', in: 'query', description: `Lines of existing log to return (or replay first). Values above ${tailMax} are capped to ${tailMax}.` },
      type: 'integer',
      minimum: 0,
      default: tailDefault,
    }),
})

export const JobParamsSchema = z.object({
  name: z
    .string()
    .min(1)
    // The pattern job names must match in the config (config/schema.ts): no other name is ever found (404).
    .openapi({ param: { name: 'name', in: 'path' }, description: 'Job name as declared in the config', pattern: jobNamePattern.source }),
})

/**
 * A download `{filename}` names a listed snapshot or part, never a path: `/`, `\`, `..` and their
 * percent-encoded forms (left after the router's one decoding, e.g. from `%252F`) are refused.
 */
export const isSafeFilename = (value: string): boolean => !/[/\\]|\.\.|%2f|%5c|%2e/i.test(value)

/** {@link isSafeFilename} as the `pattern` of the `{filename}` parameter (no `/`, `\\`, `..` or their encodings). */
const safeFilenamePattern = '^(?!.*(?:\\.\\.|%2[EeFf]|%5[Cc]))[^/\\\\]+$'

export const DownloadParamsSchema = JobParamsSchema.extend({
  filename: z
    .string()
    .min(1)
    .refine(isSafeFilename, { message: 'not a snapshot name: "/", "\\" and ".." are not allowed' })
    .openapi({
      param: { name: 'filename', in: 'path' },
      pattern: safeFilenamePattern,
      description:
        "A snapshot's `id` (= `name`) as listed; for a split snapshot its set ID (the whole set) or `<id>.part-aaa` (one part). `/`, `\\` and `..` are refused (400).",
    }),
})
