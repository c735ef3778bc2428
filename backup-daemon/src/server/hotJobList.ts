/**
 * @module server/hotJobList
 * The hot path of the daemon's most frequent request: the web UI polls `GET /api/v1/jobs`. Answered in
 * front of the Hono app, synchronously (so `@hono/node-server` writes it without a promise or a
 * `Headers` object), with the job list serialised once per change of the engine's list and one
 * precomputed header object.
 *
 * It answers only the plain success case, and exactly as the app would: `GET` of that very path (no
 * query, no trailing slash), a session that `requireSession` already verified and that is neither logged
 * out nor due for a refreshed cookie (or auth off), under a `Host` that is `localhost` or an IP literal
 * (any other name goes to the origin check, which refuses a browser's GET under a foreign name).
 * Everything else (no or bad cookie, a refresh due, `HEAD`, an engine error) returns `undefined` and goes
 * through the app, whose middleware answers it. `test/api/hotJobList.test.ts`
 * checks that both paths give the same status, headers and body.
 */
import type { IncomingMessage } from 'node:http'
import type { SessionMiddleware } from '../auth/requireSession.js'
import { sessionTokenOf } from '../auth/sessionCookie.js'
import type { Engine, JobView } from '../engine/types.js'
import { hostNameOf, isOwnHostName } from './originCheck.js'
import { apiSecurityHeaders } from './securityHeaders.js'

export interface HotJobListOptions {
  engine: Pick<Engine, 'listJobs'>
  session: Pick<SessionMiddleware, 'isCurrent'>
  /** The path answered, e.g. `/api/v1/jobs`. */
  path: string
}

/** Answers the request, or returns undefined for the app to answer it. */
export type HotRoute = (request: Request, env: { incoming?: IncomingMessage } | undefined) => Response | undefined

/**
 * The headers `c.json()` sends after the security headers middleware, in the order the app writes them
 * (a `Headers` object iterates sorted by name, and @hono/node-server appends `Content-Length`): the same
 * bytes on the wire.
 */
const jsonHeaders: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries(Object.entries({ ...apiSecurityHeaders, 'content-type': 'application/json' }).sort(([a], [b]) => (a < b ? -1 : 1))),
)

export function hotJobList({ engine, session, path }: HotJobListOptions): HotRoute {
  // The engine hands out the same frozen list (frozen views too) while no job changed: serialise once per
  // list. A list that is not frozen could change in place (test engines), so it is serialised every time.
  let listed: readonly JobView[] | undefined
  let body = ''
  let headers: Readonly<Record<string, string | number>> = jsonHeaders
  return (request, env) => {
    const incoming = env?.incoming
    if (request.method !== 'GET') return undefined
    // Node's raw request target under @hono/node-server; the full URL in-process (`app.request()`).
    const target = incoming ? incoming.url : request.url.slice(request.url.indexOf('/', request.url.indexOf('//') + 2))
    if (target !== path || !session.isCurrent(sessionTokenOf(request, incoming))) return undefined
    // A name other than localhost or an IP literal may be a rebound one: the app's origin check decides.
    const host = incoming ? incoming.headers.host : request.headers.get('host')
    if (host !== undefined && host !== null && !isOwnHostName(hostNameOf(host))) return undefined
    try {
      const jobs = engine.listJobs()
      if (jobs !== listed || !Object.isFrozen(jobs)) {
        body = JSON.stringify({ jobs })
        listed = jobs
        headers = Object.freeze({ ...jsonHeaders, 'Content-Length': Buffer.byteLength(body) })
      }
    } catch {
      // The app calls it again and answers the error with its Problem.
      listed = undefined
      return undefined
    }
    // In-process (`app.request()`) the Response is a web one, where `c.json()` sets no length either.
    return new Response(body, { status: 200, headers: (incoming ? headers : jsonHeaders) as Record<string, string> })
  }
}
