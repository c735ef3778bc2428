/**
 * @module endpoints/withErrors
 * One wrapper that turns any failure of an endpoint into the spec's error body `{errors: [{message}]}`.
 * Unexpected failures answer 500 with a generic message: upstream details stay in the server log
 * (without secrets), never in the response.
 */
import type { PayloadHandler, PayloadRequest } from 'payload'

import { HttpError } from '../errors.js'

/** JSON response with the plugin's error body. */
function errorResponse(status: number, message: string): Response {
  return Response.json({ errors: [{ message }] }, { status })
}

/** Payload's own errors (Forbidden, APIError) carry `status` and `isPublic`. */
function payloadErrorStatus(err: unknown): number | undefined {
  if (!err || typeof err !== 'object') return undefined
  const e = err as { status?: unknown; isPublic?: unknown }
  return typeof e.status === 'number' && e.status < 500 && e.isPublic !== false ? e.status : undefined
}

/** Wraps a handler: known errors keep their status and message, anything else is a 500 without details. */
export function withErrors(name: string, handler: (req: PayloadRequest) => Promise<Response>): PayloadHandler {
  return async function handle(req) {
    try {
      return await handler(req)
    } catch (err) {
      if (err instanceof HttpError) return errorResponse(err.status, err.message)
      const status = payloadErrorStatus(err)
      if (status) return errorResponse(status, (err as Error).message)
      req.payload.logger.error({ err: err instanceof Error ? { message: err.message, name: err.name } : String(err), msg: `storage-host ${name} failed` })
      return errorResponse(500, 'Something went wrong on the upstream host. Please try again later.')
    }
  }
}
