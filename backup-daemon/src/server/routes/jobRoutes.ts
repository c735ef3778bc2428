/**
 * @module server/routes/jobRoutes
 * Jobs: list, status, redacted config, manual run (202) and cancel. All need a session when auth is on.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv, RouteDeps } from '../appEnv.js'
import { HttpError } from '../../http/HttpError.js'
import { jsonResponse, problemResponses, sessionSecurity } from '../responses.js'
import type { JobDetail } from '../../engine/redactJob.js'
import { CancelResultSchema, JobListSchema, JobParamsSchema, JobStatusSchema, RunStartedSchema } from '../schemas.js'
import { JobConfigResponseSchema } from './jobConfigSchema.js'
import { jobListBody } from '../jobListBody.js'

export function jobRoutes(api: OpenAPIHono<AppEnv>, { config, engine, session }: RouteDeps): void {
  const { permissions } = config.server
  const common = { tags: ['jobs'], security: sessionSecurity, middleware: [session] }
  const jobList = jobListBody(() => engine.listJobs())

  api.openapi(
    createRoute({
      ...common,
      method: 'get',
      operationId: 'listJobs',
      path: '/jobs',
      summary: 'List jobs',
      responses: { 200: jsonResponse(JobListSchema, 'Every configured job'), ...problemResponses(401) },
    }),
    // The same bytes `c.json({ jobs })` writes, from the string kept while the engine's list is unchanged
    // (the cast: the route's typed response is the object, and this is its text, already serialised).
    (c) => c.body(jobList(), 200, { 'content-type': 'application/json' }) as never,
  )

  api.openapi(
    createRoute({
      ...common,
      method: 'get',
      operationId: 'getJobStatus',
      path: '/jobs/{name}/status',
      summary: "One job's status",
      request: { params: JobParamsSchema },
      responses: { 200: jsonResponse(JobStatusSchema, 'The job status'), ...problemResponses(401, 404) },
    }),
    (c) => {
      // JobStatus is JobSummary without the counts and the schedule; absent optional fields stay absent.
      const { schedule: _schedule, sourcesCount: _sources, storagesCount: _storages, ...status } = engine.getJob(c.req.valid('param').name)
      return c.json(status, 200)
    },
  )

  api.openapi(
    createRoute({
      ...common,
      method: 'get',
      operationId: 'getJobConfig',
      path: '/jobs/{name}/config',
      summary: "One job's configuration, without secrets",
      description: '`{job, config}`; with `server.permissions.showConfig` off, `config` holds only `name` and `schedule` (as the original service answers).',
      request: { params: JobParamsSchema },
      responses: { 200: jsonResponse(JobConfigResponseSchema, 'The job configuration'), ...problemResponses(401, 404) },
    }),
    (c) => {
      const name = c.req.valid('param').name
      if (!permissions.showConfig) {
        const { schedule } = engine.getJob(name)
        return c.json({ job: name, config: { name, schedule } }, 200)
      }
      return c.json({ job: name, config: engine.jobConfig(name) as JobDetail }, 200)
    },
  )

  api.openapi(
    createRoute({
      ...common,
      method: 'post',
      operationId: 'runJob',
      path: '/jobs/{name}/run',
      summary: 'Start a run now; the backup goes on in the background',
      description: '403 when `server.permissions.allowManualRun` is off, 409 while the job is running, 503 while the daemon shuts down.',
      request: { params: JobParamsSchema },
      responses: { 202: jsonResponse(RunStartedSchema, 'Run started'), ...problemResponses(401, 403, 404, 409, 503) },
    }),
    (c) => {
      if (!permissions.allowManualRun) throw new HttpError(403, { message: 'manual runs are switched off (server.permissions.allowManualRun)' })
      const job = c.req.valid('param').name
      const { startedAt } = engine.run(job, 'manual')
      return c.json({ job, startedAt }, 202)
    },
  )

  api.openapi(
    createRoute({
      ...common,
      method: 'post',
      operationId: 'cancelJobRun',
      path: '/jobs/{name}/cancel',
      summary: 'Cancel the run in flight',
      description: '409 when the job has no run in progress.',
      request: { params: JobParamsSchema },
      responses: { 200: jsonResponse(CancelResultSchema, 'Cancellation requested'), ...problemResponses(401, 404, 409) },
    }),
    (c) => {
      const job = c.req.valid('param').name
      const { cancelledAt } = engine.cancel(job)
      return c.json({ cancelledAt, job }, 200)
    },
  )
}
