/**
 * @module server/routes/metricsRoute
 * `GET /metrics`: Prometheus text (per job runs, failures, last duration, last size, last success time).
 * Outside `/api/v1` because that is where scrapers look, so it is not in the OpenAPI document (which
 * describes `/api/v1`). Behind the same session middleware as the API when auth is on (401 Problem
 * without a valid cookie): a scraper logs in first, or the operator turns auth off on a private address.
 */
import type { Hono, MiddlewareHandler } from 'hono'
import type { Engine } from '../../engine/types.js'
import { HttpError } from '../../http/HttpError.js'

export const metricsPath = '/metrics'

export function metricsRoute(app: Hono<any>, { engine, session }: { engine: Engine; session: MiddlewareHandler }): void {
  app.get(metricsPath, session, async (c) => {
    if (!engine.metrics) throw new HttpError(404, { message: 'this engine keeps no metrics' })
    const { contentType, body } = await engine.metrics()
    c.header('cache-control', 'no-store')
    return c.body(body, 200, { 'content-type': contentType })
  })
}
