/**
 * @module server/routes/logRoutes
 * Job and system logs, as a tail (JSON) or a live stream (server-sent events). A tail of a switched-off
 * log is an empty list; a stream of one is a single message saying so.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi'
import { JobNotFoundError } from '../../runs/errors.js'
import type { LogScope } from '../../engine/types.js'
import type { AppEnv, RouteDeps } from '../appEnv.js'
import { jsonResponse, problemResponses, sessionSecurity } from '../responses.js'
import { JobLogSchema, JobParamsSchema, StreamFrameSchema, SystemLogSchema, TailQuerySchema } from '../schemas.js'
import { streamLog } from '../streamLog.js'

const sseResponse = {
  description: 'Server-sent events: `message` events whose data is `{"line": "..."}`; `{"line":""}` every 15 s as keep-alive',
  content: { 'text/event-stream': { schema: StreamFrameSchema } },
}

export function logRoutes(api: OpenAPIHono<AppEnv>, { engine, session, keepAliveMs, untilSessionEnds }: RouteDeps): void {
  const common = { tags: ['logs'], security: sessionSecurity, middleware: [session] }
  const lines = (scope: LogScope, tail: number) => (engine.logs.enabled(scope) && tail > 0 ? engine.logs.tail(scope, tail) : [])

  api.openapi(
    createRoute({
      ...common,
      method: 'get',
      operationId: 'getJobLogs',
      path: '/jobs/{name}/logs',
      summary: "The tail of a job's log and its newest run",
      request: { params: JobParamsSchema, query: TailQuerySchema },
      responses: { 200: jsonResponse(JobLogSchema, 'Log tail and run metadata'), ...problemResponses(401, 404) },
    }),
    (c) => {
      const { name } = c.req.valid('param')
      const { tail } = c.req.valid('query')
      engine.getJob(name)
      const { startTime, endTime, duration, error, status } = engine.runInfo(name)
      return c.json({ job: name, logs: lines({ kind: 'job', job: name }, tail), duration, endTime, error, startTime, status }, 200)
    },
  )

  api.openapi(
    createRoute({
      ...common,
      method: 'get',
      operationId: 'streamJobLogs',
      path: '/jobs/{name}/logs/stream',
      summary: "A job's log, live",
      description: 'An unknown job or `logs.perJob: false` gives one message saying so, then the stream closes.',
      request: { params: JobParamsSchema, query: TailQuerySchema },
      responses: { 200: sseResponse, ...problemResponses(401) },
    }),
    (c) => {
      const { name } = c.req.valid('param')
      const { tail } = c.req.valid('query')
      const scope: LogScope = { kind: 'job', job: name }
      let refusal: string | undefined
      try {
        engine.getJob(name)
        if (!engine.logs.enabled(scope)) refusal = 'per-job logs are switched off (logs.perJob: false)'
      } catch (err) {
        if (!(err instanceof JobNotFoundError)) throw err
        refusal = err.message
      }
      return streamLog(c, { logs: engine.logs, scope, tail, keepAliveMs, refusal, untilSessionEnds: (onEnd) => untilSessionEnds(c.req.raw, onEnd) }) as never
    },
  )

  api.openapi(
    createRoute({
      ...common,
      method: 'get',
      operationId: 'getSystemLogs',
      path: '/logs/system',
      summary: 'The tail of the system log',
      request: { query: TailQuerySchema },
      responses: { 200: jsonResponse(SystemLogSchema, 'Log tail'), ...problemResponses(401) },
    }),
    (c) => c.json({ logs: lines({ kind: 'system' }, c.req.valid('query').tail) }, 200),
  )

  api.openapi(
    createRoute({
      ...common,
      method: 'get',
      operationId: 'streamSystemLogs',
      path: '/logs/system/stream',
      summary: 'The system log, live',
      description: '`logs.system: false` gives one message saying so, then the stream closes.',
      request: { query: TailQuerySchema },
      responses: { 200: sseResponse, ...problemResponses(401) },
    }),
    (c) => {
      const scope: LogScope = { kind: 'system' }
      const refusal = engine.logs.enabled(scope) ? undefined : 'the system log is switched off (logs.system: false)'
      const tail = c.req.valid('query').tail
      return streamLog(c, { logs: engine.logs, scope, tail, keepAliveMs, refusal, untilSessionEnds: (onEnd) => untilSessionEnds(c.req.raw, onEnd) }) as never
    },
  )
}
