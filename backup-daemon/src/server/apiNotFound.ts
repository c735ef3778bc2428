/**
 * @module server/apiNotFound
 * The catch-all of `/api/v1`: a path no route serves is a 404 Problem; a path served under another
 * method is a 405 Problem with `Allow`. Being the last `/api/v1` route, it also keeps unknown API paths
 * from falling through to the web UI's pages.
 */
import type { Context } from 'hono'
import { HttpError } from '../http/HttpError.js'

export interface ApiRoute {
  method: string
  /** OpenAPI-style path relative to the prefix, e.g. `/jobs/{name}/status`. */
  path: string
}

export interface ApiNotFoundOptions {
  prefix: string
  routes: () => ApiRoute[]
}

export const apiNotFound = ({ prefix, routes }: ApiNotFoundOptions) => {
  let compiled: { method: string; pattern: RegExp }[] | undefined
  return function apiNotFound(c: Context): Response {
    compiled ??= routes().map(({ method, path }) => ({
      method: method.toUpperCase(),
      pattern: new RegExp(`^${prefix}${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^/}]+\}/g, '[^/]+')}$`),
    }))
    const allowed = compiled.filter((r) => r.pattern.test(c.req.path)).map((r) => r.method)
    if (allowed.length > 0) {
      if (allowed.includes('GET')) allowed.push('HEAD')
      throw new HttpError(405, { message: `${c.req.method} is not allowed here; use ${allowed.join(', ')}`, headers: { Allow: allowed.join(', ') } })
    }
    throw new HttpError(404, { message: `no endpoint ${c.req.path}` })
  }
}
