/**
 * @module server/routes/runSchemas
 * The live progress of a run and the run history as zod schemas (OpenAPI components `RunProgress`,
 * `RunRecord`, `RunHistory`), matching `runs/progress.ts` and `runs/history.ts`.
 * Optional fields are left out when unknown, never null.
 */
import { z } from '@hono/zod-openapi'

const phases = ['preparing', 'hooks', 'dumping', 'archiving', 'uploading', 'retention', 'verifying', 'restoring', 'finishing'] as const
const kinds = ['backup', 'restore', 'verify', 'drill'] as const

export const StorageProgressSchema = z
  .object({
    storage: z.string(),
    bytesWritten: z.number().int().openapi({
      description:
        "What the storage got so far: an archive storage the archive's bytes (every archive storage the same, at the pace of the slowest), a restic repository what restic added (data_added, after each source)",
    }),
    done: z.boolean().openapi({ description: 'true once the storage holds the committed snapshot' }),
  })
  .openapi('StorageProgress')

export const RunProgressSchema = z
  .object({
    kind: z.enum(kinds),
    phase: z.enum(phases),
    startedAt: z.string().openapi({ description: 'RFC 3339' }),
    currentSource: z.string().optional().openapi({ description: 'Name of the source being read' }),
    currentFile: z.string().optional().openapi({ description: 'Path of the entry being read, relative to its source' }),
    filesRead: z.number().int(),
    bytesRead: z.number().int(),
    totalBytes: z.number().int().optional().openapi({ description: 'When known: local trees counted up front, else the previous successful run' }),
    storages: z.array(StorageProgressSchema),
    bytesPerSecond: z.number().int().openapi({ description: 'Read rate, smoothed' }),
    etaSeconds: z.number().int().optional().openapi({ description: 'Only when `totalBytes` is known' }),
    percent: z.number().min(0).max(100).optional().openapi({ description: 'Only when `totalBytes` is known' }),
  })
  .openapi('RunProgress', { description: 'The run in flight, live. Left out of a job status when the job is idle.' })

export const RunRecordSchema = z
  .object({
    id: z.string().openapi({ description: 'Unique, sorts by start time' }),
    job: z.string(),
    kind: z.enum(kinds),
    trigger: z.enum(['schedule', 'manual', 'cli', 'api']),
    startedAt: z.string(),
    endedAt: z.string(),
    durationMs: z.number().int(),
    result: z.enum(['success', 'failed', 'cancelled']),
    bytesRead: z.number().int(),
    bytesWritten: z
      .number()
      .int()
      .openapi({ description: "Backup: the most any one storage got (the archive's size when the job has archive storages); restore: bytes restored" }),
    storages: z
      .array(z.object({ storage: z.string(), bytesWritten: z.number().int() }))
      .optional()
      .openapi({ description: "Backup: what each storage got, as its writer reports it (the archive's bytes; restic's data_added)" }),
    filesRead: z.number().int().optional(),
    snapshot: z.string().optional().openapi({ description: 'Snapshot created (backup) or used (restore, verify)' }),
    target: z.string().optional().openapi({ description: 'Restore: the folder or database written' }),
    error: z.string().optional(),
    summary: z.string().optional().openapi({ description: 'A task that succeeded: what it did, one line' }),
    notProven: z
      .array(z.string())
      .optional()
      .openapi({ description: 'A drill: the copies that could not be proven (no record to compare with), each with why' }),
  })
  .openapi('RunRecord')

export const RunHistorySchema = z.object({ job: z.string(), runs: z.array(RunRecordSchema).openapi({ description: 'Newest first' }) }).openapi('RunHistory')

export const HistoryQuerySchema = z.object({
  limit: z
    .preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().min(1).max(10_000).optional())
    .openapi({
      param: { name: 'limit', in: 'query', description: 'Newest runs to return; all kept runs when absent' },
      type: 'integer',
      minimum: 1,
      maximum: 10_000,
    }),
})

export const ProgressFrameSchema = z
  .object({
    event: z.enum(['progress', 'end']),
    data: z.union([RunProgressSchema, RunRecordSchema]),
  })
  .openapi('ProgressFrame', { description: '`progress` events carry a RunProgress (at most 4 per second), `end` events the RunRecord of the run that ended' })
