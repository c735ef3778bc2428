/**
 * @module http/HttpError
 * The one error type handlers and middleware throw to answer with a Problem. Like Hono's
 * `HTTPException`, it knows how to become its own response (`getResponse`), so the error handler never
 * has to guess a status.
 */
import { problem, problemContentType, type ProblemFieldError } from './problem.js'

export interface HttpErrorOptions {
  /** Safe to show to the client: never a secret, a path on disk or a stack. */
  message: string
  cause?: unknown
  errors?: ProblemFieldError[]
  /** Extra response headers, e.g. `Retry-After` or `Allow`. */
  headers?: Record<string, string>
}

export class HttpError extends Error {
  override name = 'HttpError'
  readonly errors: ProblemFieldError[]
  readonly headers: Record<string, string>

  constructor(
    readonly status: number,
    { message, cause, errors = [], headers = {} }: HttpErrorOptions,
  ) {
    super(message, { cause })
    this.errors = errors
    this.headers = headers
  }

  /** The Problem response; `instance` is the request path. */
  getResponse(instance: string): Response {
    const body = problem(this.status, { detail: this.message, instance, errors: this.errors })
    return new Response(JSON.stringify(body), {
      status: this.status,
      headers: { ...this.headers, 'Content-Type': problemContentType },
    })
  }
}
