/**
 * @module server/routes/progressRoutes
 * `GET /jobs/{name}/progress`: the job's runs, live, as server-sent events. The progress of a run in
 * flight comes first, then a `progress` event per snapshot (at most ~4 per second) and an `end` event
 * with the RunRecord when a run ends; the stream stays open for the next run, with a keep-alive comment
 * every `keepAliveMs`. A slow client gets only the newest snapshot, never a growing queue.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi'
import { streamSSE } from 'hono/streaming'
import type { RunRecord } from '../../engine/history/types.js'
import type { RunProgress } from '../../engine/progress/types.js'
import type { AppEnv, RouteDeps } from '../appEnv.js'
import { problemResponses, sessionSecurity } from '../responses.js'
import { JobParamsSchema } from '../schemas.js'
import { ProgressFrameSchema } from './runSchemas.js'

type Frame = { event: 'progress'; data: RunProgress } | { event: 'end'; data: RunRecord }

export function progressRoutes(api: OpenAPIHono<AppEnv>, { engine, session, keepAliveMs }: RouteDeps): void {
  api.openapi(
    createRoute({
      tags: ['jobs'],
      security: sessionSecurity,
      middleware: [session],
      method: 'get',
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
      c.header('X-Accel-Buffering', 'no')
      if (c.req.method === 'HEAD') return c.body(null, 200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' }) as never
      return streamSSE(
        c,
        async (stream) => {
          // One write at a time; while one is pending only the newest progress waits (ends always wait).
          const waiting: Frame[] = []
          let writing = false
          const pump = async () => {
            writing = true
            try {
              for (let frame = waiting.shift(); frame; frame = waiting.shift()) await stream.writeSSE({ event: frame.event, data: JSON.stringify(frame.data) })
            } catch {
              waiting.length = 0
            } finally {
              writing = false
            }
          }
          const send = (frame: Frame) => {
            const last = waiting.at(-1)
            if (frame.event === 'progress' && last?.event === 'progress') waiting[waiting.length - 1] = frame
            else waiting.push(frame)
            if (!writing) void pump()
          }
          const unwatch = engine.watchRuns?.(name, { progress: (data) => send({ event: 'progress', data }), end: (data) => send({ event: 'end', data }) })
          const current = engine.progress?.(name)
          if (current) send({ event: 'progress', data: current })
          const keepAlive = setInterval(() => {
            if (!writing) void stream.write(': keep-alive\n\n').catch(() => {})
          }, keepAliveMs)
          try {
            await new Promise<void>((resolve) => {
              if (stream.aborted) resolve()
              else stream.onAbort(resolve)
            })
          } finally {
            clearInterval(keepAlive)
            unwatch?.()
          }
        },
        async () => {
          // A failed write means the client is gone; the finally above has already cleaned up.
        },
      ) as never
    },
  )
}
