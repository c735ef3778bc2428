/**
 * @module server/createApp
 * The daemon's HTTP app: `/api/v1` (one route declaration per endpoint, Problem JSON on every error
 * path, the OpenAPI document and docs page) and, when `server.ui.enabled`, the web UI at `/`. Exported on
 * its own so tests can drive it in-process with `app.request()`.
 */
import { OpenAPIHono } from '@hono/zod-openapi'
import type { Hono } from 'hono'
import type { AccountLoginLimiterOptions } from '../auth/accountLoginLimiter.js'
import { loginLimits as createLoginLimits } from '../auth/loginLimits.js'
import type { LoginRateLimiterOptions } from '../auth/loginRateLimiter.js'
import { requireSession } from '../auth/requireSession.js'
import { revokedSessions } from '../auth/revokedSessions.js'
import { sessionEnds } from '../auth/sessionEnds.js'
import { sessionKey as keyFromSecret } from '../auth/sessionKey.js'
import type { DaemonConfig } from '../config/types.js'
import type { Engine } from '../engine/types.js'
import type { JobTasks } from '../tasks/createJobTasks.js'
import { serveUi } from '../ui/serveUi.js'
import { apiNotFound, type ApiRoute } from './apiNotFound.js'
import type { AppEnv, RouteDeps } from './appEnv.js'
import { asContextResponse, handleError } from './handleError.js'
import { HttpError } from '../http/HttpError.js'
import { originCheck } from './originCheck.js'
import { authRoutes } from './routes/authRoutes.js'
import { backupRoutes } from './routes/backupRoutes.js'
import { apiPrefix, docRoutes } from './routes/docRoutes.js'
import { historyRoutes } from './routes/historyRoutes.js'
import { jobRoutes } from './routes/jobRoutes.js'
import { logRoutes } from './routes/logRoutes.js'
import { metricsPath, metricsRoute } from './routes/metricsRoute.js'
import { progressRoutes } from './routes/progressRoutes.js'
import { systemRoutes } from './routes/systemRoutes.js'
import { taskRoutes } from './routes/taskRoutes.js'
import { securityHeaders } from './securityHeaders.js'
import { validationHook } from './validationHook.js'

export interface CreateAppOptions {
  config: DaemonConfig
  engine: Engine
  /** Restore and verify of listed snapshots (`daemon/createDaemon` builds them); without them those routes answer 501. */
  tasks?: JobTasks
  /** HS256 key for session JWTs. @default the UTF-8 bytes of `server.secret`, or a random per-process key when it is empty */
  sessionKey?: Uint8Array
  /** Milliseconds between keep-alive frames on log streams (tests shorten it). @default 15000 */
  keepAliveMs?: number
  /** Failed-login limits per client address and user name. @default { maxFailures: 10, windowMs: 900000 } */
  loginLimits?: LoginRateLimiterOptions
  /** Failed-login limits per account, whatever the address. @default { freeFailures: 10, firstLockMs: 15000, maxLockMs: 60000 } */
  accountLimits?: AccountLoginLimiterOptions
  /** The web UI mounted at `/` when `server.ui.enabled`. @default serveUi() */
  ui?: () => Hono
  /** Milliseconds since the epoch, for session times (tests move it). @default Date.now */
  clock?: () => number
}

export function createApp({
  config,
  engine,
  tasks,
  sessionKey,
  keepAliveMs = 15_000,
  loginLimits,
  accountLimits,
  ui = serveUi,
  clock = Date.now,
}: CreateAppOptions): OpenAPIHono<AppEnv> {
  const key = sessionKey ?? keyFromSecret(config.server.secret)
  const revoked = revokedSessions()
  const ends = sessionEnds(clock)
  const session = requireSession({ auth: config.server.auth, key, revoked, clock, ends })
  const deps: RouteDeps = {
    config,
    engine,
    tasks,
    sessionKey: key,
    session,
    loginLimits: createLoginLimits(loginLimits, accountLimits),
    keepAliveMs,
    startedAt: new Date(),
    untilSessionEnds(request, onEnd) {
      const claims = session.claimsOf(request)
      return claims ? ends.watch(claims.sid, onEnd) : () => {}
    },
  }

  const api = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  authRoutes(api, deps, { revoked, clock, ends })
  jobRoutes(api, deps)
  progressRoutes(api, deps)
  historyRoutes(api, deps)
  backupRoutes(api, deps)
  taskRoutes(api, deps)
  logRoutes(api, deps)
  systemRoutes(api, deps)
  docRoutes(api)
  const routes = (): ApiRoute[] => api.openAPIRegistry.definitions.flatMap((d) => (d.type === 'route' ? [{ method: d.route.method, path: d.route.path }] : []))
  // Last API route: unknown API paths end here as Problems and never reach the UI below.
  api.all('*', apiNotFound({ prefix: apiPrefix, routes }))

  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  app.onError(handleError({ logs: engine.logs }))
  app.use('*', securityHeaders())
  // Before any API handler or session check: a cross-site POST never reaches them (CSRF), and a browser's
  // read under a rebound host name gets nothing (DNS rebinding): `/metrics` names jobs, sizes and times too.
  const origins = originCheck({ allowedOrigins: config.server.auth.allowedOrigins ?? [] })
  app.use(`${apiPrefix}/*`, origins)
  app.route(apiPrefix, api)
  if (config.server.metrics?.enabled ?? true) {
    app.use(metricsPath, origins)
    metricsRoute(app, deps)
  }
  if (config.server.ui.enabled) app.route('/', ui())
  app.notFound((c) => asContextResponse(c, new HttpError(404, { message: `no such page ${c.req.path}` }).getResponse(c.req.path)))
  return app
}
