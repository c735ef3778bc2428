/**
 * @module server/routes/historyRoutes
 * `GET /jobs/{name}/history`: the job's ended runs, newest first, as kept under the state dir
 * (bounded by `history.limit`, surviving restarts).
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv, RouteDeps } from '../appEnv.js'
import { jsonResponse, problemResponses, sessionSecurity } from '../responses.js'
import { JobParamsSchema } from '../schemas.js'
import { HistoryQuerySchema, RunHistorySchema } from './runSchemas.js'

export function historyRoutes(api: OpenAPIHono<AppEnv>, { engine, session }: RouteDeps): void {
  api.openapi(
    createRoute({
      tags: ['jobs'],
      security: sessionSecurity,
      middleware: [session],
      method: 'get',
      operationId: 'getJobHistory',
      path: '/jobs/{name}/history',
      summary: "A job's recent runs",
      description: 'Ended runs (backups; restores and verifications too), newest first, at most `history.limit` per job (default 100).',
      request: { params: JobParamsSchema, query: HistoryQuerySchema },
      responses: { 200: jsonResponse(RunHistorySchema, 'The runs, newest first'), ...problemResponses(400, 401, 404) },
    }),
    (c) => {
      const { name } = c.req.valid('param')
      const { limit } = c.req.valid('query')
      engine.getJob(name)
      return c.json({ job: name, runs: engine.history?.list(name, limit) ?? [] }, 200)
    },
  )
}
