/**
 * @module server/validationHook
 * The `defaultHook` of every route: a failed zod validation becomes a 400 Problem whose `errors[]`
 * name each failing field (`query.tail`, `path.name`, `body.username`) with the value the client sent.
 * zod 4 issues do not carry the input, so the value is read from the raw input the validator saw.
 * The value is cut to a small depth and size (`boundedValue`): echoing a 10000-deep array whole
 * overflowed the stack while the body was serialised, and the client already has its own input.
 */
import type { Hook } from '@hono/zod-openapi'
import { HttpError } from '../http/HttpError.js'
import type { ProblemFieldError } from '../http/problem.js'

const prefixes: Record<string, string> = { json: 'body', param: 'path', query: 'query', header: 'header', cookie: 'cookie', form: 'body' }

const maxDepth = 3
const maxItems = 10
const maxString = 200

/** `value` cut to `maxDepth` levels, `maxItems` items or keys per level and `maxString` characters per string. */
export function boundedValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return value.length > maxString ? `${value.slice(0, maxString)}...` : value
  if (value === null || typeof value !== 'object') return value
  if (depth >= maxDepth) return Array.isArray(value) ? '[array]' : '[object]'
  if (Array.isArray(value)) {
    const items = value.slice(0, maxItems).map((v) => boundedValue(v, depth + 1))
    return value.length > maxItems ? [...items, `... ${value.length - maxItems} more`] : items
  }
  const keys = Object.keys(value)
  const out: Record<string, unknown> = {}
  for (const key of keys.slice(0, maxItems)) out[boundedValue(key) as string] = boundedValue((value as Record<string, unknown>)[key], depth + 1)
  if (keys.length > maxItems) out['...'] = `${keys.length - maxItems} more keys`
  return out
}

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
    value: boundedValue(valueAt(input, issue.path) ?? null),
  }))
  const what = errors.map((e) => e.location).join(', ')
  throw new HttpError(400, { message: `request validation failed: ${what}`, errors })
}
