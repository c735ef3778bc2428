/**
 * @module server/schemas
 * The spec's resources as zod schemas (registered as OpenAPI components by name), and the request
 * parameters shared by several routes. Every field of the spec is present and required in responses.
 */
import { z } from '@hono/zod-openapi'

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
  })
  .openapi('Problem')

export const LastResultSchema = z
  .object({ success: z.boolean(), duration: z.string(), error: z.string() })
  .openapi('LastResult')

const jobStatusValue = z.enum(['idle', 'running', 'cancelling'])

export const JobSummarySchema = z
  .object({
    active: z.boolean(),
    name: z.string(),
    schedule: z.string(),
    sourcesCount: z.number().int(),
    storagesCount: z.number().int(),
    status: jobStatusValue,
    lastResult: LastResultSchema,
    lastRun: z.string().openapi({ description: 'RFC 3339, "" before the first run' }),
    nextRun: z.string().openapi({ description: 'RFC 3339, "" when not scheduled' }),
  })
  .openapi('JobSummary')

export const JobListSchema = z.object({ jobs: z.array(JobSummarySchema) }).openapi('JobList')

export const JobStatusSchema = z
  .object({
    active: z.boolean(),
    name: z.string(),
    status: jobStatusValue,
    lastResult: LastResultSchema,
    lastRun: z.string(),
    nextRun: z.string(),
  })
  .openapi('JobStatus')

export const JobConfigSchema = z
  .record(z.string(), z.unknown())
  .openapi('JobConfig', { description: "The job's configuration as loaded, every secret replaced by \"[redacted]\"." })

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
  })
  .openapi('Snapshot')

export const SnapshotListSchema = z.object({ backups: z.array(SnapshotSchema), job: z.string() }).openapi('SnapshotList')

export const RunStartedSchema = z.object({ job: z.string(), startedAt: z.string() }).openapi('RunStarted')
export const CancelResultSchema = z.object({ cancelledAt: z.string(), job: z.string() }).openapi('CancelResult')
export const AuthCheckSchema = z.object({ authenticated: z.boolean(), authEnabled: z.boolean() }).openapi('AuthCheck')
export const LoginResultSchema = z.object({ success: z.boolean() }).openapi('LoginResult')
export const LoginRequestSchema = z
  .object({ username: z.string().min(1).max(256), password: z.string().min(1).max(1024) })
  .openapi('LoginRequest')

export const SettingsSchema = z
  .object({
    logLimits: z.object({
      jobLogs: z.number().int().openapi({ description: 'Lines kept per job log' }),
      systemLogs: z.number().int().openapi({ description: 'Lines kept in the system log' }),
    }),
    logs: z.object({ perJob: z.boolean(), system: z.boolean() }),
    permissions: z.object({ allowBackupDownload: z.boolean(), allowManualRun: z.boolean(), showConfig: z.boolean() }),
  })
  .openapi('Settings')

export const DaemonStatusSchema = z
  .object({
    version: z.string(),
    startedAt: z.string().openapi({ description: 'RFC 3339 time the server started' }),
    uptimeSeconds: z.number().int(),
    authEnabled: z.boolean(),
    jobs: z.object({
      total: z.number().int(),
      active: z.number().int(),
      idle: z.number().int(),
      running: z.number().int(),
      cancelling: z.number().int(),
    }),
  })
  .openapi('DaemonStatus')

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
      param: { name: 'tail', in: 'query', description: `Lines of existing log to return (or replay first). Values above ${tailMax} are capped.` },
      type: 'integer',
      minimum: 0,
      maximum: tailMax,
      default: tailDefault,
    }),
})

export const JobParamsSchema = z.object({
  name: z.string().min(1).openapi({ param: { name: 'name', in: 'path' }, description: 'Job name as declared in the config' }),
})

export const DownloadParamsSchema = JobParamsSchema.extend({
  filename: z
    .string()
    .min(1)
    .openapi({ param: { name: 'filename', in: 'path' }, description: "A snapshot's `name` as listed; for a split snapshot its set ID" }),
})
