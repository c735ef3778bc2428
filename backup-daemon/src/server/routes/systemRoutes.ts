/**
 * @module server/routes/systemRoutes
 * `GET /status` (needs a session when auth is on: it tells what runs) and `GET /settings` (public: the UI
 * reads it before login to know what to offer).
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi'
import { readFileSync } from 'node:fs'
import type { AppEnv, RouteDeps } from '../appEnv.js'
import { jsonResponse, problemResponses, sessionSecurity } from '../responses.js'
import { DaemonStatusSchema, SettingsSchema } from '../schemas.js'

/** The package version, read once (the OpenAPI document and `/status` report it). */
export const daemonVersion: string = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version

export function systemRoutes(api: OpenAPIHono<AppEnv>, { config, engine, session, startedAt }: RouteDeps): void {
  api.openapi(
    createRoute({
      method: 'get',
      path: '/status',
      tags: ['system'],
      summary: 'Daemon version, uptime and job counts',
      security: sessionSecurity,
      middleware: [session],
      responses: { 200: jsonResponse(DaemonStatusSchema, 'Daemon status'), ...problemResponses(401) },
    }),
    (c) => {
      const jobs = engine.listJobs()
      const count = (status: string) => jobs.filter((j) => j.status === status).length
      return c.json(
        {
          version: daemonVersion,
          startedAt: startedAt.toISOString(),
          uptimeSeconds: Math.floor((Date.now() - startedAt.getTime()) / 1000),
          authEnabled: config.server.auth.enabled,
          jobs: { total: jobs.length, active: jobs.filter((j) => j.active).length, idle: count('idle'), running: count('running'), cancelling: count('cancelling') },
        },
        200,
      )
    },
  )

  api.openapi(
    createRoute({
      method: 'get',
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
          permissions: { allowBackupDownload, allowManualRun, showConfig },
        },
        200,
      )
    },
  )
}
