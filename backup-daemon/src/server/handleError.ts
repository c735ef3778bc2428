/**
 * @module server/handleError
 * `app.onError`: every thrown error becomes a Problem response. Unexpected errors are logged (name and
 * message only, to the system log, which `serve` prints on stderr) and answered with a bare 500.
 */
import type { Context } from 'hono'
import type { LogHub } from '../engine/types.js'
import { formatLine } from '../logs/formatLine.js'
import { HttpError } from '../http/HttpError.js'
import { toHttpError } from './toHttpError.js'

export interface HandleErrorOptions {
  logs: LogHub
}

export const handleError = ({ logs }: HandleErrorOptions) =>
  function handleError(err: Error, c: Context): Response {
    const known = toHttpError(err)
    // Through the context, so the prepared headers (security headers, a refreshed cookie) are kept.
    if (known) {
      try {
        return asContextResponse(c, known.getResponse(c.req.path))
      } catch {
        // A body that cannot be serialised (e.g. a client value too deep) must not turn a 4xx into a
        // 500: the same status and message, without the field details.
        return asContextResponse(c, new HttpError(known.status, { message: known.message, headers: known.headers }).getResponse(c.req.path))
      }
    }
    const line = `server: internal error on ${c.req.method} ${c.req.path}: ${err.name}: ${err.message}`
    try {
      // The system log only: `serve` prints its lines on stderr (the journal), so this is not printed twice.
      // Stamped here: the request path in it must not decide the line's level.
      logs.append({ kind: 'system' }, formatLine('error', line))
    } catch {
      // The log hub failing must not turn a 500 into a crash.
    }
    return asContextResponse(c, new HttpError(500, { message: 'internal error' }).getResponse(c.req.path))
  }

/** Re-issues `res` through `c.newResponse`, merging the headers prepared on the context. */
export function asContextResponse(c: Context, res: Response): Response {
  return c.newResponse(res.body, res)
}
