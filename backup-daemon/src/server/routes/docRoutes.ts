/**
 * @module server/routes/docRoutes
 * `GET /openapi` (the OpenAPI 3.1 document generated from the route declarations, built once) and
 * `GET /docs` (an offline docs page rendering it). Both are public: they describe the API, not the data.
 * Register these last: the document covers the routes declared before the first request.
 */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv } from '../appEnv.js'
import { docsPageCsp, docsPageHtml } from '../docsPage.js'
import { problemResponses, publicSecurity } from '../responses.js'
import { sessionCookieName } from '../../auth/sessionCookie.js'
import { daemonVersion } from './systemRoutes.js'

export const apiPrefix = '/api/v1'

export function docRoutes(api: OpenAPIHono<AppEnv>): void {
  api.openAPIRegistry.registerComponent('securitySchemes', 'cookieAuth', {
    type: 'apiKey',
    in: 'cookie',
    name: sessionCookieName,
    description: 'HS256 JWT set by POST /auth/login; needed only when auth is enabled',
  })

  let document: unknown
  api.openapi(
    createRoute({
      method: 'get',
      operationId: 'getOpenAPIDocument',
      security: publicSecurity,
      path: '/openapi',
      tags: ['docs'],
      summary: 'This API description (OpenAPI 3.1)',
      responses: {
        200: { description: 'OpenAPI 3.1 document', content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } } },
        ...problemResponses(),
      },
    }),
    (c) => {
      document ??= api.getOpenAPI31Document({
        openapi: '3.1.0',
        info: {
          title: 'Backup daemon API',
          version: daemonVersion,
          license: { name: 'MIT', url: 'https://opensource.org/license/mit' },
          description: 'Schedules and runs backup jobs; snapshots, logs and settings. Errors are RFC 9457 Problem JSON.',
        },
        servers: [{ url: apiPrefix }],
        tags: [
          { name: 'auth', description: 'Session cookie' },
          { name: 'jobs', description: 'Jobs and runs' },
          { name: 'backups', description: 'Snapshots' },
          { name: 'restore', description: 'Verify, restore and drill snapshots; the task in flight' },
          { name: 'logs', description: 'Job and system logs' },
          { name: 'system', description: 'Daemon status and UI settings' },
          { name: 'docs', description: 'This description' },
        ],
      })
      return c.json(document as Record<string, unknown>, 200)
    },
  )

  api.openapi(
    createRoute({
      method: 'get',
      operationId: 'getDocsPage',
      security: publicSecurity,
      path: '/docs',
      tags: ['docs'],
      summary: 'Human-readable API docs (HTML, works offline)',
      responses: { 200: { description: 'HTML page', content: { 'text/html': { schema: z.string() } } }, ...problemResponses() },
    }),
    (c) => c.html(docsPageHtml, 200, { 'Content-Security-Policy': docsPageCsp }) as never,
  )
}
