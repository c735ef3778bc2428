/**
 * @module server/routes/systemRoutes
 * `GET /status` and `GET /settings`, both public. Without a session `/status` answers only what the
 * original service's web client reads before login (`status`, `uptime`, `jobsCount`: its system page;
 * `version`: its login page shows it, as the original's does, issue 38); how it runs (`environment`, job
 * counts by state, auth, storages down) is added only for a valid session or with auth off. `/settings`
 * is read by the UI before login to know what to offer.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { readFileSync } from 'node:fs'
import type { AppEnv, RouteDeps } from '../appEnv.js'
import { HttpError } from '../../http/HttpError.js'
import { jsonResponse, problemResponses, publicSecurity } from '../responses.js'
import { DaemonStatusSchema, SettingsSchema } from '../schemas.js'

/** The package version, read once (the OpenAPI document and `/status` report it). */
export const daemonVersion: string = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version

/** `NODE_ENV` as the original reports its environment; a daemon started without it is a production one. */
const environment = process.env.NODE_ENV || 'production'

export function systemRoutes(api: OpenAPIHono<AppEnv>, { config, engine, session, startedAt }: RouteDeps): void {
  /** Whether the request carries a valid session (always true with auth off); refreshes the cookie like any session check. */
  const hasSession = async (c: Context): Promise<boolean> => {
    try {
      let passed = false
      await session(c, async () => {
        passed = true
      })
      return passed
    } catch (err) {
      if (err instanceof HttpError && err.status === 401) return false
      throw err
    }
  }

  api.openapi(
    createRoute({
      method: 'get',
      operationId: 'getStatus',
      security: publicSecurity,
      path: '/status',
      tags: ['system'],
      summary: 'Daemon status, uptime, job count and version (public); environment and job counts by state with a session',
      responses: { 200: jsonResponse(DaemonStatusSchema, 'Daemon status'), ...problemResponses() },
    }),
    async (c) => {
      const jobs = engine.listJobs()
      const uptime = Math.floor((Date.now() - startedAt.getTime()) / 1000)
      const base = { status: 'ok' as const, uptime, jobsCount: jobs.length, version: daemonVersion }
      if (!(await hasSession(c))) return c.json(base, 200)
      const running = jobs.filter((j) => j.status === 'running')
      const cancelling = running.filter((j) => j.cancelling).length
      return c.json(
        {
          ...base,
          environment,
          startedAt: startedAt.toISOString(),
          uptimeSeconds: uptime,
          authEnabled: config.server.auth.enabled,
          storagesDown: engine.storagesDown?.() ?? [],
          jobs: {
            total: jobs.length,
            active: jobs.filter((j) => j.active).length,
            idle: jobs.length - running.length,
            running: running.length - cancelling,
            cancelling,
          },
        },
        200,
      )
    },
  )

  api.openapi(
    createRoute({
      method: 'get',
      operationId: 'getSettings',
      security: publicSecurity,
      path: '/settings',
      tags: ['system'],
      summary: 'Bootstrap settings for the UI (public)',
      responses: { 200: jsonResponse(SettingsSchema, 'Settings'), ...problemResponses() },
    }),
    (c) => {
      const { logLimits, logs, server } = config
      const { allowBackupDownload, allowManualRun, showConfig } = server.permissions
      return c.json(
        {
          logLimits: { jobLogs: logLimits.jobLogs, systemLogs: logLimits.systemLogs },
          logs: { perJob: logs.perJob, system: logs.system },
          permissions: { allowBackupDownload, allowManualRun, showConfig, allowRestore: server.permissions.allowRestore ?? false },
          defaultLanguage: server.defaultLanguage ?? 'en',
        },
        200,
      )
    },
  )
}
