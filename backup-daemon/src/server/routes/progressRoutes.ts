/**
 * @module server/routes/progressRoutes
 * `GET /jobs/{name}/progress`: the job's runs, live, as server-sent events. The progress of a run in
 * flight comes first, then a `progress` event per snapshot (at most ~4 per second) and an `end` event
 * with the RunRecord when a run ends; the stream stays open for the next run, with a keep-alive comment
 * every `keepAliveMs` (`runEventStream`). Restore and verify tasks have their own stream (`taskRoutes`).
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv, RouteDeps } from '../appEnv.js'
import { problemResponses, sessionSecurity } from '../responses.js'
import { JobParamsSchema } from '../schemas.js'
import { runEventStream } from './runEventStream.js'
import { ProgressFrameSchema } from './runSchemas.js'

export function progressRoutes(api: OpenAPIHono<AppEnv>, { engine, session, keepAliveMs, untilSessionEnds }: RouteDeps): void {
  api.openapi(
    createRoute({
      tags: ['jobs'],
      security: sessionSecurity,
      middleware: [session],
      method: 'get',
      operationId: 'getJobProgress',
      path: '/jobs/{name}/progress',
      summary: "A job's runs, live",
      description:
        'Server-sent events: `progress` (data: RunProgress) while a run is in flight, at most about 4 per second, the current one first; ' +
        '`end` (data: RunRecord) when a run ends. ' +
        'The stream stays open across runs; a comment line every 15 s keeps proxies from closing it.',
      request: { params: JobParamsSchema },
      responses: {
        200: { description: 'The event stream', content: { 'text/event-stream': { schema: ProgressFrameSchema } } },
        ...problemResponses(401, 404),
      },
    }),
    (c) => {
      const { name } = c.req.valid('param')
      // Unknown job: a 404 Problem before any stream is opened.
      engine.getJob(name)
      if (c.req.method === 'HEAD') return c.body(null, 200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' }) as never
      return runEventStream(c, {
        keepAliveMs,
        untilSessionEnds: (onEnd) => untilSessionEnds(c.req.raw, onEnd),
        subscribe(listener) {
          const unwatch = engine.watchRuns?.(name, listener)
          const current = engine.progress?.(name)
          if (current) listener.progress(current)
          return unwatch
        },
      }) as never
    },
  )
}
