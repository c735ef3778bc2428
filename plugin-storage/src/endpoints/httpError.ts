/**
 * @module endpoints/httpError
 * One error type for the plugin's endpoints and one wrapper that turns any failure into the spec's
 * error body `{errors: [{message}]}`. Unexpected failures answer 500 with a generic message: upstream
 * details stay in the server log (without secrets), never in the response.
 *
 * `HttpError` is the package's only error that becomes an answer (a 413 body limit included);
 * `upstream/UpstreamError` describes a failed call to the host and is never shown as it is.
 */
import type { PayloadHandler, PayloadRequest } from 'payload'

/** An error whose status and message are safe to show to the caller. */
export class HttpError extends Error {
  readonly status: number

  constructor(status: number, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'HttpError'
    this.status = status
  }
}

/** JSON response with the plugin's error body. */
export function errorResponse(status: number, message: string): Response {
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

/** Parses a JSON body; 400 when it is not a JSON object. */
export async function readJsonObject(req: PayloadRequest): Promise<Record<string, unknown>> {
  let body: unknown
  try {
    body = req.json ? await req.json() : undefined
  } catch {
    throw new HttpError(400, 'The request body must be JSON.')
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new HttpError(400, 'The request body must be a JSON object.')
  return body as Record<string, unknown>
}
