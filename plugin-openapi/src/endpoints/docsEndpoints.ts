/**
 * @module plugin-openapi/endpoints/docsEndpoints
 * The docs page (Swagger UI) and its assets, served from swagger-ui-dist in node_modules: no CDN, works offline.
 */
import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import * as nodeModule from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'

import type { Endpoint } from 'payload'

import { DOCS_ASSETS, DOCS_INIT_SCRIPT } from '../constants.js'
import { PLUGIN_ENDPOINT_MARK } from '../generate/generateOpenAPIDocument.js'
import type { OpenAPIPluginOptions } from '../types.js'
import { refusedRead } from './readAccess.js'

let distDir: string | undefined

/**
 * swagger-ui-dist's folder, found on first use. The call is indirect on purpose: a bundler (webpack in
 * a Next.js build of the CMS) rewrites a visible `createRequire(...).resolve()` into a module id,
 * which is not a path. The working directory is the fallback base for bundles whose
 * `import.meta.url` no longer points into the package.
 */
function swaggerUiDir(): string {
  if (distDir) return distDir
  const makeRequire = (nodeModule as unknown as Record<string, unknown>)['create' + 'Require'] as typeof nodeModule.createRequire
  for (const base of [import.meta.url, pathToFileURL(join(process.cwd(), 'package.json')).href]) {
    try {
      return (distDir = dirname(makeRequire(base).resolve('swagger-ui-dist/package.json')))
    } catch {
      // try the next base
    }
  }
  throw new Error('plugin-openapi: the docs page needs the swagger-ui-dist package, which cannot be found')
}
const mark = { [PLUGIN_ENDPOINT_MARK]: true }

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/** `sha384-…` of bytes, for Subresource Integrity. */
const integrity = (bytes: Uint8Array | string) => `sha384-${createHash('sha384').update(bytes).digest('base64')}`

/**
 * Page + assets endpoints. `specURL` and `docsURL` are full paths (with `routes.api`). The assets are served
 * by the CMS itself, and the page pins each with Subresource Integrity (a proxy or cache that changed one
 * would stop the page rather than run other code). `options.access` guards the page and its assets.
 */
export function docsEndpoints(docsPath: string, specURL: string, docsURL: string, title: string, options: OpenAPIPluginOptions = {}): Endpoint[] {
  // Cookies ride along on same-origin "Try it out" requests, so a logged-in admin can try the API directly.
  const init = `window.ui = SwaggerUIBundle({
  url: document.getElementById('swagger-ui').dataset.specUrl,
  dom_id: '#swagger-ui',
  deepLinking: true,
  withCredentials: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout',
  validatorUrl: null
});`
  let page: Promise<string> | undefined
  const buildPage = async () => {
    const sri = async (asset: string) => integrity(await readFile(join(swaggerUiDir(), asset)))
    const [css, bundle, preset] = await Promise.all(['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js'].map(sri))
    const url = escapeHtml(docsURL)
    return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${url}/swagger-ui.css" integrity="${css}">
<link rel="icon" type="image/png" href="${url}/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui" data-spec-url="${escapeHtml(specURL)}"></div>
<script src="${url}/swagger-ui-bundle.js" integrity="${bundle}"></script>
<script src="${url}/swagger-ui-standalone-preset.js" integrity="${preset}"></script>
<script src="${url}/${DOCS_INIT_SCRIPT}" integrity="${integrity(init)}"></script>
</body>
</html>`
  }
  return [
    {
      path: docsPath,
      method: 'get',
      custom: mark,
      handler: async (req) => {
        const refused = await refusedRead(req, options)
        if (refused) return refused
        page ??= buildPage()
        return new Response(await page, { status: 200, headers: { 'Content-Type': 'text/html; charset=utf-8' } })
      },
    },
    {
      path: `${docsPath}/:asset`,
      method: 'get',
      custom: mark,
      handler: async (req) => {
        const refused = await refusedRead(req, options)
        if (refused) return refused
        const asset = String(req.routeParams?.asset ?? '')
        if (asset === DOCS_INIT_SCRIPT) return new Response(init, { status: 200, headers: { 'Content-Type': 'text/javascript; charset=utf-8' } })
        // Only the listed names: the request path never reaches the file system.
        const type = Object.hasOwn(DOCS_ASSETS, asset) ? DOCS_ASSETS[asset] : undefined
        if (!type) return Response.json({ errors: [{ message: 'Not Found' }] }, { status: 404 })
        const body = await readFile(join(swaggerUiDir(), asset))
        return new Response(new Uint8Array(body), { status: 200, headers: { 'Content-Type': type, 'Cache-Control': 'public, max-age=86400' } })
      },
    },
  ]
}
