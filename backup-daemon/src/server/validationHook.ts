/**
 * @module server/validationHook
 * The `defaultHook` of every route: a failed zod validation becomes a 400 Problem whose `errors[]`
 * name each failing field (`query.tail`, `path.name`, `body.username`) with the value the client sent.
 * zod 4 issues do not carry the input, so the value is read from the raw input the validator saw.
 */
import type { Hook } from '@hono/zod-openapi'
import { HttpError } from './HttpError.js'
import type { ProblemFieldError } from './problem.js'

const prefixes: Record<string, string> = { json: 'body', param: 'path', query: 'query', header: 'header', cookie: 'cookie', form: 'body' }

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined
    value = (value as Record<PropertyKey, unknown>)[key]
  }
  return value
}

 
export const validationHook: Hook<any, any, any, any> = (result) => {
  if (result.success) return
  const prefix = prefixes[result.target] ?? result.target
  // @hono/zod-validator passes the raw input as `data` (its own Hook type says so; zod-openapi's omits it).
  const input = (result as { data?: unknown }).data
  const errors: ProblemFieldError[] = result.error.issues.map((issue) => ({
    location: [prefix, ...issue.path.map(String)].join('.'),
    message: issue.message,
    value: valueAt(input, issue.path) ?? null,
  }))
  const what = errors.map((e) => e.location).join(', ')
  throw new HttpError(400, { message: `request validation failed: ${what}`, errors })
}
