/**
 * @module server/responses
 * Shorthands for route declarations: a JSON response and the Problem responses a route can give.
 */
import type { z } from '@hono/zod-openapi'
import { problemContentType } from '../http/problem.js'
import { ProblemSchema } from './schemas.js'

const problemDescriptions: Record<number, string> = {
  400: 'Invalid request (the `errors` list names each failing field)',
  401: 'No valid session (missing, forged or expired cookie)',
  403: 'Switched off by the server permissions',
  404: 'Unknown job or snapshot',
  409: 'Conflicts with the job state',
  413: 'Request body too large',
  415: 'Body not sent as application/json',
  429: 'Too many failed logins (for this user name from this address, or for this account)',
  500: 'Unexpected server failure',
  501: 'Not supported by the storage',
  503: 'The daemon is shutting down',
}

export function jsonResponse<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { 'application/json': { schema } } }
}

/** Problem responses for the given statuses; 400 and 500 are on every route (any request can be malformed or fail). */
export function problemResponses<S extends number>(...statuses: S[]) {
  const all = [...new Set([400, ...statuses, 500])] as (S | 400 | 500)[]
  return Object.fromEntries(
    all.map((status) => [status, { description: problemDescriptions[status] ?? 'Error', content: { [problemContentType]: { schema: ProblemSchema } } }]),
  ) as Record<S | 400 | 500, { description: string; content: { [problemContentType]: { schema: typeof ProblemSchema } } }>
}

/** The cookie security requirement of routes that need a session when auth is on. */
export const sessionSecurity = [{ cookieAuth: [] as string[] }]

/** The explicit "no credential needed" of public routes (DESIGN.md: settings, status, docs, auth), for clients and linters. */
export const publicSecurity: Record<string, string[]>[] = []
