/**
 * @module server/routes/backupRoutes
 * Snapshots of a job: the committed list and the download (streamed from the storage with its length,
 * or a 307 to a signed storage URL). Downloads are refused with 403 when `allowBackupDownload` is off.
 */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi'
import { Readable } from 'node:stream'
import type { AppEnv, RouteDeps } from '../appEnv.js'
import { contentDisposition } from '../contentDisposition.js'
import { HttpError } from '../../http/HttpError.js'
import { jsonResponse, problemResponses, sessionSecurity } from '../responses.js'
import { DownloadParamsSchema, JobParamsSchema, SnapshotListSchema } from '../schemas.js'

const archiveBytes = z.string().openapi({ format: 'binary' })

/** A listed snapshot as served (the spec's fields plus `checksummed`, `damaged`, `storage`, `storages`). */

export function backupRoutes(api: OpenAPIHono<AppEnv>, { config, engine, session }: RouteDeps): void {
  const common = { tags: ['backups'], security: sessionSecurity, middleware: [session] }

  api.openapi(
    createRoute({
      ...common,
      method: 'get',
      operationId: 'listBackups',
      path: '/jobs/{name}/backups',
      summary: "A job's committed snapshots, newest first",
      request: { params: JobParamsSchema },
      responses: { 200: jsonResponse(SnapshotListSchema, 'Snapshots over every storage of the job'), ...problemResponses(401, 404) },
    }),
    async (c) => {
      const job = c.req.valid('param').name
      const backups = await engine.listSnapshots(job)
      const storagesDown = (engine.storagesDown?.() ?? []).filter((down) => down.job === job).map(({ storage, error, since }) => ({ storage, error, since }))
      return c.json({ backups, job, ...(storagesDown.length > 0 && { storagesDown }) }, 200)
    },
  )

  api.openapi(
    createRoute({
      ...common,
      method: 'get',
      operationId: 'downloadBackup',
      path: '/jobs/{name}/backups/{filename}/download',
      summary: 'Download a snapshot, a split set as one stream, or one part of a set',
      description:
        '`{filename}` is a listed `id` (= `name`), a split set ID, or `<id>.part-aaa` for one part. ' +
        '200 with the bytes, or 307 to a signed storage URL. 400 for a `{filename}` with `/`, `\\` or `..`, ' +
        '403 when `server.permissions.allowBackupDownload` is off, 404 for a name that is not listed, ' +
        '409 when every copy of the snapshot failed its last verify (not served until a verify passes). ' +
        '501 when the storage cannot stream a split set as one download. A stream whose manifest records its sha256 carries it in `Repr-Digest` ' +
        '(RFC 9530) and is cut off with an error, not completed, when the bytes read from the storage do not match it.',
      request: { params: DownloadParamsSchema },
      responses: {
        200: {
          description: 'The archive',
          headers: {
            'Content-Length': { schema: { type: 'integer' } },
            'Content-Disposition': { schema: { type: 'string' }, description: 'attachment; filename="..."; filename*=UTF-8\'\'...' },
            'Repr-Digest': { schema: { type: 'string' }, description: 'sha-256=:<base64>: of the bytes, when the manifest records it' },
          },
          // The storage names the type: tar.gz and tar archives, or opaque bytes (e.g. encrypted).
          content: {
            'application/gzip': { schema: archiveBytes },
            'application/x-tar': { schema: archiveBytes },
            'application/octet-stream': { schema: archiveBytes },
          },
        },
        307: { description: 'Redirect to a signed storage URL', headers: { Location: { schema: { type: 'string', format: 'uri' } } } },
        ...problemResponses(401, 403, 404, 409, 501),
      },
    }),
    async (c) => {
      if (!config.server.permissions.allowBackupDownload) {
        throw new HttpError(403, { message: 'backup downloads are switched off (server.permissions.allowBackupDownload)' })
      }
      const { name, filename } = c.req.valid('param')
      const download = await engine.openSnapshot(name, filename)
      if (download.kind === 'redirect') return c.redirect(download.url, 307)
      const headers = {
        'Content-Type': download.contentType,
        'Content-Length': String(download.size),
        'Content-Disposition': contentDisposition(download.filename),
        ...(download.sha256 && { 'Repr-Digest': `sha-256=:${Buffer.from(download.sha256, 'hex').toString('base64')}:` }),
      }
      // Hono answers HEAD with the GET handler and drops the body unread: do not open a storage stream for it.
      if (c.req.method === 'HEAD') return c.body(null, 200, headers)
      const body = Readable.toWeb(await download.open()) as ReadableStream<Uint8Array>
      return c.body(body, 200, headers)
    },
  )
}
