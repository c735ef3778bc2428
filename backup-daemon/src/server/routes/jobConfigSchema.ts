/**
 * @module server/routes/jobConfigSchema
 * The response of `GET /jobs/{name}/config`: `{job, config: JobDetail}` (the original service's
 * secret-free job view, built by `engine/redactJob.ts`), or `{job, config: {name, schedule}}` when
 * `server.permissions.showConfig` is off, so the job page can still render.
 */
import { z } from '@hono/zod-openapi'

const value = z.union([z.string(), z.number(), z.boolean(), z.array(z.string()), z.record(z.string(), z.string())])
const entry = (name: string, description: string) => z.object({ type: z.string(), name: z.string() }).catchall(value).openapi(name, { description })

export const JobDetailSchema = z
  .object({
    name: z.string(),
    schedule: z.string(),
    sources: z.array(
      entry('SourceDetail', 'A source without secrets: `hasUri` instead of `uri`; the original spellings `excludes`, `username`, `extraParams`.'),
    ),
    storages: z.array(entry('StorageDetail', 'A storage without secrets: `hasPrivateKey`, `hasKnownHosts`, `hasUrl` and `urlHost` instead of them.')),
    defaultStorage: z.string().optional(),
    compression: z.string(),
    retention: z.object({ last: z.int().optional(), daily: z.int().optional(), weekly: z.int().optional(), monthly: z.int().optional() }).optional(),
    hasBeforeScript: z.boolean(),
    hasAfterScript: z.boolean(),
    encryption: z
      .object({ type: z.string(), cipher: z.string().optional(), hasPassphrase: z.boolean().optional(), recipients: z.array(z.string()).optional() })
      .optional(),
    notifiers: z.array(
      z.object({ type: z.string(), name: z.string().optional(), onSuccess: z.boolean(), onFailure: z.boolean() }).catchall(value).openapi('NotifierDetail', {
        description:
          'A notifier without secrets: `urlHost` (webhook), `hasUrl` and `urlHost` (healthchecks), `chatId` (telegram), `from`, `to`, `smtpHost` (email).',
      }),
    ),
    split: z.object({ chunkSize: z.string().openapi({ example: '1GB' }), chunkSizeBytes: z.int() }).optional(),
    active: z.boolean(),
    timezone: z.string().optional(),
    compressionLevel: z.int().optional(),
  })
  .openapi('JobDetail', { description: "The job's configuration without any secret." })

export const JobConfigResponseSchema = z
  .union([
    z.object({ job: z.string(), config: JobDetailSchema }),
    z
      .object({ job: z.string(), config: z.object({ name: z.string(), schedule: z.string() }) })
      .openapi('JobConfigHidden', { description: 'With `server.permissions.showConfig: false`: only what the job page needs.' }),
  ])
  .openapi('JobConfigResponse')
