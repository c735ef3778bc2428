/**
 * @module plugin-openapi/constants
 * Route defaults and the docs page's asset names (shared by the endpoints and the tests).
 */

/** Swagger UI files served from the plugin's own endpoint (the docs page works offline). */
export const DOCS_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
}

/** Our own initializer script (kept out of the HTML so a strict CSP without inline scripts still works). */
export const DOCS_INIT_SCRIPT = 'openapi-docs-init.js'

/** The YAML route next to the JSON one: `.json` -> `.yaml` (or `.yaml` appended). */
export function yamlRouteOf(specRoute: string): string {
  return specRoute.endsWith('.json') ? `${specRoute.slice(0, -'.json'.length)}.yaml` : `${specRoute}.yaml`
}

/** Route relative to `routes.api`: accepts `/openapi.json` as well as `/api/openapi.json`. */
export function relativeToApi(route: string, apiRoute: string): string {
  const r = route.startsWith('/') ? route : `/${route}`
  const api = apiRoute.replace(/\/+$/, '')
  return api && r.startsWith(`${api}/`) ? r.slice(api.length) : r
}
