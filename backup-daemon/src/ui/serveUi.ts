/**
 * @module ui/serveUi
 * Serves the web UI's built files (`backup-daemon/ui/assets/`, committed) from memory. The server
 * mounts the returned app at `/` after `/api/v1` when `server.ui.enabled` is on.
 *
 * - Only files listed when `serveUi()` runs are ever served: a request path is looked up in that
 *   table, never joined onto the folder, so no path can escape it.
 * - Hashed files under `/static/` are cached for a year (`immutable`); `index.html` is `no-cache`
 *   (revalidated by ETag) so a new build is picked up at once.
 * - Client routes (`/jobs/x`, `/logs/system`, `/login`) fall back to `index.html`; a missing file
 *   with an extension, or anything under `/api/`, is a 404 left to the server's not-found handler.
 * - Every answer carries a strict Content-Security-Policy: same origin only, no inline script or style.
 */
import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { extname, join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { Hono, type Context } from 'hono'
import { listFiles } from './build/listFiles.js'

export interface ServeUiOptions {
  /** Folder of the built UI. @default the committed build, `backup-daemon/ui/assets/` */
  assetsDir?: string
}

/** The policy sent with every UI response; the UI talks only to its own origin. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.map': 'application/json',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
}

interface Asset {
  body: Buffer
  gzip?: Buffer
  contentType: string
  etag: string
  cacheControl: string
}

const defaultAssetsDir = new URL('../../ui/assets/', import.meta.url).pathname

export function serveUi(options: ServeUiOptions = {}): Hono {
  const assetsDir = options.assetsDir ?? defaultAssetsDir
  const assets = loadAssets(assetsDir)
  const app = new Hono()

  app.use('*', async function securityHeaders(c, next) {
    await next()
    c.header('Content-Security-Policy', CONTENT_SECURITY_POLICY)
    c.header('X-Content-Type-Options', 'nosniff')
    c.header('Referrer-Policy', 'no-referrer')
    c.header('X-Frame-Options', 'DENY')
  })

  app.on(['GET', 'HEAD'], '*', (c) => {
    const path = c.req.path
    if (path === '/api' || path.startsWith('/api/')) return c.notFound()
    const index = assets.get('/index.html')
    if (!index) {
      return c.text('The web UI is not built: run `npm run build:ui -w backup-daemon`.', 503, { 'Cache-Control': 'no-store' })
    }
    const asset = assets.get(path === '/' ? '/index.html' : path)
    if (asset) return send(c, asset)
    // A path that names a file (has an extension) and is not one: a real 404, not the app shell.
    if (extname(path) !== '') return c.notFound()
    return send(c, index)
  })

  return app
}

function send(c: Context, asset: Asset): Response {
  const headers: Record<string, string> = {
    'Content-Type': asset.contentType,
    'Cache-Control': asset.cacheControl,
    ETag: asset.etag,
    Vary: 'Accept-Encoding',
  }
  const match = c.req.header('If-None-Match')
  if (match && match.split(',').some((tag) => tag.trim() === asset.etag)) return c.body(null, 304, headers)
  const acceptsGzip = /\bgzip\b/.test(c.req.header('Accept-Encoding') ?? '')
  const body = acceptsGzip && asset.gzip ? asset.gzip : asset.body
  if (body === asset.gzip) headers['Content-Encoding'] = 'gzip'
  headers['Content-Length'] = String(body.length)
  if (c.req.method === 'HEAD') return c.body(null, 200, headers)
  return c.body(new Uint8Array(body), 200, headers)
}

/** Reads every built file into memory (the build is a few tens of KiB), keyed by URL path. */
function loadAssets(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>()
  if (!existsSync(join(dir, 'index.html'))) return assets
  for (const file of listFiles(dir)) {
    const body = readFileSync(join(dir, file))
    const ext = extname(file)
    const hashed = file.startsWith('static/')
    const compressible = ['.html', '.js', '.css', '.svg', '.json', '.map', '.txt'].includes(ext) && body.length > 256
    assets.set(`/${file}`, {
      body,
      gzip: compressible ? gzipSync(body, { level: 9 }) : undefined,
      contentType: CONTENT_TYPES[ext] ?? 'application/octet-stream',
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
      cacheControl: hashed ? 'public, max-age=31536000, immutable' : 'no-cache',
    })
  }
  return assets
}
