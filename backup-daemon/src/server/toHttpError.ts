/**
 * @module server/toHttpError
 * Maps anything thrown while answering a request to the `HttpError` it stands for: our own errors as
 * they are, the engine's typed errors to their statuses, Hono's `HTTPException`s (malformed JSON 400,
 * unsupported media type 415, body too large 413) to Problems. Anything else is a 500 whose message
 * never reaches the client.
 */
import { HTTPException } from 'hono/http-exception'
import {
  EngineStoppingError,
  FullDownloadUnsupportedError,
  JobBusyError,
  JobNotFoundError,
  NoRunInFlightError,
  SnapshotNotFoundError,
  SnapshotVerifyFailedError,
} from '../runs/errors.js'
import { HttpError } from '../http/HttpError.js'

const engineStatuses: [new (...args: never[]) => Error, number][] = [
  [JobNotFoundError, 404],
  [SnapshotNotFoundError, 404],
  [JobBusyError, 409],
  [NoRunInFlightError, 409],
  [SnapshotVerifyFailedError, 409],
  [FullDownloadUnsupportedError, 501],
  [EngineStoppingError, 503],
]

const exceptionMessages: Record<number, string> = {
  400: 'malformed JSON in request body',
  413: 'request body too large',
  415: 'unsupported media type: send the body as application/json',
}

/** Returns the `HttpError` for `err`, or `undefined` when it is an unexpected failure (a 500). */
export function toHttpError(err: unknown): HttpError | undefined {
  if (err instanceof HttpError) return err
  for (const [type, status] of engineStatuses) {
    // Engine messages are written to be shown (runs/errors.ts): no secrets, no paths.
    if (err instanceof type) return new HttpError(status, { message: err.message, cause: err })
  }
  if (err instanceof HTTPException) {
    const message = exceptionMessages[err.status] ?? (err.status >= 500 ? 'internal error' : 'bad request')
    return new HttpError(err.status, { message, cause: err })
  }
  return undefined
}
