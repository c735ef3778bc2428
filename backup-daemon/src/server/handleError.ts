/**
 * @module server/handleError
 * `app.onError`: every thrown error becomes a Problem response. Unexpected errors are logged (name and
 * message only, to stderr and the system log) and answered with a bare 500.
 */
import type { Context } from 'hono'
import type { LogHub } from '../engine/types.js'
import { HttpError } from './HttpError.js'
import { toHttpError } from './toHttpError.js'

export interface HandleErrorOptions {
  logs: LogHub
}

export const handleError = ({ logs }: HandleErrorOptions) =>
  function handleError(err: Error, c: Context): Response {
    const known = toHttpError(err)
    if (known) return known.getResponse(c.req.path)
    const line = `server: internal error on ${c.req.method} ${c.req.path}: ${err.name}: ${err.message}`
    console.error(line)
    try {
      logs.append({ kind: 'system' }, line)
    } catch {
      // The log hub failing must not turn a 500 into a crash.
    }
    return new HttpError(500, { message: 'internal error' }).getResponse(c.req.path)
  }
