/**
 * @module server/routes/taskRoutes
 * Restore and verify of a listed snapshot, and restore drills of a job's newest one, as background tasks
 * (one per job at a time, never while the job's backup runs): start (202 with the task), the job's current task (the newest, running or ended;
 * 204 before the first) and cancel. Starting and cancelling are refused with 403 while
 * `server.permissions.allowRestore` is off (the default). Every refusal is a Problem and writes nothing.
 */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi'
import { bodyLimit } from 'hono/body-limit'
import { TaskRefusedError } from '../../tasks/TaskRefusedError.js'
import type { JobTasks } from '../../tasks/createJobTasks.js'
import type { AppEnv, RouteDeps } from '../appEnv.js'
import { HttpError } from '../../http/HttpError.js'
import { jsonResponse, problemResponses, sessionSecurity } from '../responses.js'
import { DownloadParamsSchema, JobParamsSchema } from '../schemas.js'
import { runEventStream } from './runEventStream.js'
import { ProgressFrameSchema, RunProgressSchema } from './runSchemas.js'

export const TaskSchema = z
  .object({
    id: z.string(),
    job: z.string(),
    kind: z.enum(['verify', 'restore', 'drill']),
    snapshot: z.string(),
    target: z.string().optional().openapi({ description: 'Restore: the resolved folder, or `database <name>` of `restore.databases`' }),
    status: z.enum(['running', 'cancelling', 'success', 'failed', 'cancelled']),
    progress: RunProgressSchema.optional(),
    startedAt: z.string(),
    endedAt: z.string().optional(),
    error: z.string().optional(),
    summary: z.string().optional().openapi({ description: 'What an ended task did, one line' }),
  })
  .openapi('Task', {
    description:
      'A restore, verify or drill task. Its `progress` counts bytes read from the storage against the total (a restore reads the snapshot twice: verify, then restore)',
  })

const TaskResponseSchema = z.object({ task: TaskSchema }).openapi('TaskResponse')

export const RestoreRequestSchema = z
  .object({
    target: z.discriminatedUnion('kind', [
      z.object({
        kind: z.literal('files'),
        path: z
          .string()
          .min(1)
          .max(4096)
          .openapi({ description: 'Absolute folder strictly inside one of `restore.roots`; no `.`/`..` steps; its parent must exist' }),
        overwrite: z
          .boolean()
          .optional()
          .openapi({ description: 'Replace files the folder already holds (default false: such a clash fails the restore, nothing written)' }),
        intoLibrary: z.boolean().optional().openapi({
          description:
            "Then upload the job's video library sources from the folder back into their library (new ids; old → new in `guid-map.json` in the folder). 400 when the job has none",
        }),
        libraryId: z.number().int().positive().optional().openapi({ description: 'With `intoLibrary`: upload into this library instead (same API and key)' }),
      }),
      z.object({
        kind: z.literal('database'),
        source: z.string().min(1).openapi({ description: 'A database source of the job (its dump in the snapshot)' }),
        database: z.string().min(1).openapi({ description: 'A name under `restore.databases`' }),
        overwrite: z.boolean().optional().openapi({ description: 'Replace existing objects (pg_restore --clean --if-exists; default false)' }),
      }),
    ]),
  })
  .openapi('RestoreRequest')

export const RestoreOptionsSchema = z
  .object({
    job: z.string(),
    roots: z.array(z.string()).openapi({ description: '`restore.roots`: a files restore goes into a folder strictly inside one' }),
    databaseSources: z
      .array(
        z.object({
          name: z.string(),
          type: z.string(),
          targets: z.array(z.string()).openapi({ description: '`restore.databases` names of a kind it restores into' }),
        }),
      )
      .openapi({ description: "The job's database sources" }),
    librarySources: z
      .array(z.string())
      .openapi({ description: 'Sources a files restore can then upload into their video library (`intoLibrary`); empty: not offered' }),
  })
  .openapi('RestoreOptions')

export function taskRoutes(api: OpenAPIHono<AppEnv>, { config, tasks: jobTasks, session, keepAliveMs, untilSessionEnds }: RouteDeps): void {
  const common = { tags: ['restore'], security: sessionSecurity, middleware: [session] }
  const allowed = () => {
    if (!config.server.permissions.allowRestore) throw new HttpError(403, { message: 'restore and verify are switched off (server.permissions.allowRestore)' })
  }
  const tasks = (): JobTasks => {
    if (!jobTasks) throw new HttpError(501, { message: 'this engine has no restore or verify tasks' })
    return jobTasks
  }
  /** A refusal of the task layer as its Problem. */
  const refusal = (err: unknown): never => {
    if (err instanceof TaskRefusedError) throw new HttpError(err.status, { message: err.message, cause: err })
    throw err
  }

  api.openapi(
    createRoute({
      ...common,
      method: 'get',
      operationId: 'getRestoreOptions',
      path: '/jobs/{name}/restore-options',
      summary: 'What a restore of the job may target: the restore roots, the databases each database source goes into, library uploads',
      description: 'Names and folders only, no connection keys. 403 when `server.permissions.allowRestore` is off, 404 for an unknown job.',
      request: { params: JobParamsSchema },
      responses: { 200: jsonResponse(RestoreOptionsSchema, 'The choices'), ...problemResponses(401, 403, 404, 501) },
    }),
    (c) => {
      allowed()
      return c.json(tasks().restoreOptions(c.req.valid('param').name), 200)
    },
  )

  api.openapi(
    createRoute({
      ...common,
      method: 'post',
      operationId: 'verifyBackup',
      path: '/jobs/{name}/backups/{filename}/verify',
      summary: 'Verify a listed snapshot in the background',
      description:
        "Every storage copy: each part's sha256 against the manifest; a snapshot without a manifest is decrypted and read to its end. " +
        '403 when `server.permissions.allowRestore` is off, 404 for a snapshot that is not listed, 409 while a backup or another task of the job runs.',
      request: { params: DownloadParamsSchema },
      responses: { 202: jsonResponse(TaskResponseSchema, 'Verify started'), ...problemResponses(401, 403, 404, 409, 501) },
    }),
    async (c) => {
      allowed()
      const { name, filename } = c.req.valid('param')
      const task = await tasks().verify(name, filename).catch(refusal)
      return c.json({ task }, 202)
    },
  )

  api.openapi(
    createRoute({
      ...common,
      method: 'post',
      operationId: 'restoreBackup',
      path: '/jobs/{name}/backups/{filename}/restore',
      summary: 'Restore a listed snapshot in the background: files into a folder, or a database source into a configured database',
      description:
        'The snapshot is verified first, then restored. Files are unpacked under a temporary name next to the target and moved into place at the end, ' +
        'so a failed or cancelled restore leaves the folder as it was. 400 for a target outside `restore.roots`, with `..`, or a database not in ' +
        '`restore.databases`; 403 when `server.permissions.allowRestore` is off; 404 for a snapshot that is not listed; ' +
        '409 while a backup or another task runs.',
      middleware: [
        session,
        bodyLimit({
          maxSize: 16 * 1024,
          onError: () => {
            throw new HttpError(413, { message: 'request body too large' })
          },
        }),
      ] as const,
      request: { params: DownloadParamsSchema, body: { required: true, content: { 'application/json': { schema: RestoreRequestSchema } } } },
      responses: { 202: jsonResponse(TaskResponseSchema, 'Restore started'), ...problemResponses(401, 403, 404, 409, 413, 415, 501) },
    }),
    async (c) => {
      allowed()
      const { name, filename } = c.req.valid('param')
      const { target } = c.req.valid('json')
      const task = await tasks().restore(name, filename, target).catch(refusal)
      return c.json({ task }, 202)
    },
  )

  api.openapi(
    createRoute({
      ...common,
      method: 'post',
      operationId: 'drillJob',
      path: '/jobs/{name}/drill',
      summary: "A restore drill of the job's newest snapshot, in the background",
      description:
        'On every storage of the job (or the one `storage` names): the newest snapshot is verified, restored into a scratch folder under the ' +
        "daemon's data folder (removed afterwards) and compared with the record the backup wrote: every file's size and digest, and each " +
        "database source's checks (SQLite: integrity_check, tables and row counts). The task (kind `drill`) fails naming what differed. " +
        '400 for a storage the job does not have, 403 when `server.permissions.allowRestore` is off, 404 when no storage holds a snapshot, ' +
        '409 while a backup or another task of the job runs.',
      request: {
        params: JobParamsSchema,
        query: z.object({ storage: z.string().min(1).max(200).optional().openapi({ description: 'Only this storage of the job' }) }),
      },
      responses: { 202: jsonResponse(TaskResponseSchema, 'Drill started'), ...problemResponses(401, 403, 404, 409, 501) },
    }),
    async (c) => {
      allowed()
      const { name } = c.req.valid('param')
      const { storage } = c.req.valid('query')
      const task = await tasks().drill(name, storage).catch(refusal)
      return c.json({ task }, 202)
    },
  )

  api.openapi(
    createRoute({
      ...common,
      method: 'get',
      operationId: 'getCurrentTask',
      path: '/jobs/{name}/tasks/current',
      summary: "The job's restore or verify task: the running one, else the newest ended one",
      description: '204 when the daemon has run no task for the job since it started.',
      request: { params: JobParamsSchema },
      responses: { 200: jsonResponse(TaskResponseSchema, 'The task'), 204: { description: 'No task yet' }, ...problemResponses(401, 404, 501) },
    }),
    (c) => {
      const task = tasks().current(c.req.valid('param').name)
      return task ? c.json({ task }, 200) : c.body(null, 204)
    },
  )

  api.openapi(
    createRoute({
      ...common,
      method: 'get',
      operationId: 'getCurrentTaskProgress',
      path: '/jobs/{name}/tasks/current/progress',
      summary: "The job's current restore or verify task, live",
      description:
        'Server-sent events of the task `tasks/current` shows: `progress` (data: RunProgress, kind `restore` or `verify`) at once and then at most ' +
        'about 4 per second while it runs, then one `end` (data: its RunRecord, as in the history) after which the stream closes. ' +
        'An ended task gets its `end` at once. 204 when the daemon has run no task for the job since it started. ' +
        "A sibling of the job's run stream (`/jobs/{name}/progress`), which carries backups only.",
      request: { params: JobParamsSchema },
      responses: {
        200: { description: 'The event stream', content: { 'text/event-stream': { schema: ProgressFrameSchema } } },
        204: { description: 'No task yet' },
        ...problemResponses(401, 404, 501),
      },
    }),
    (c) => {
      const { name } = c.req.valid('param')
      const jobTasks = tasks()
      // Unknown job: a 404 Problem before any stream is opened; no task yet: 204.
      if (!jobTasks.current(name)) return c.body(null, 204)
      if (c.req.method === 'HEAD') return c.body(null, 200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' }) as never
      return runEventStream(c, {
        keepAliveMs,
        closeOnEnd: true,
        subscribe: (listener) => jobTasks.follow(name, listener),
        untilSessionEnds: (onEnd) => untilSessionEnds(c.req.raw, onEnd),
      }) as never
    },
  )

  api.openapi(
    createRoute({
      ...common,
      method: 'post',
      operationId: 'cancelCurrentTask',
      path: '/jobs/{name}/tasks/current/cancel',
      summary: 'Cancel the running restore or verify task',
      description: 'The task ends as `cancelled`; a restore leaves its target as it was. 409 when no task runs.',
      request: { params: JobParamsSchema },
      responses: { 200: jsonResponse(TaskResponseSchema, 'Cancellation requested'), ...problemResponses(401, 403, 404, 409, 501) },
    }),
    (c) => {
      allowed()
      try {
        return c.json({ task: tasks().cancel(c.req.valid('param').name) }, 200)
      } catch (err) {
        return refusal(err)
      }
    },
  )
}
