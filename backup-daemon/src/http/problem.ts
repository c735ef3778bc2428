/**
 * @module http/problem
 * RFC 9457 Problem Details, in the spec's shape: every error response of `/api/v1` has this body and the
 * `application/problem+json` content type. It also carries `error` (the same text as `detail`): the
 * original service's web client reads `{error}` for its toast text, and RFC 9457 allows extension members.
 */

export const problemContentType = 'application/problem+json'

/** One failed check of the request, e.g. `{ location: 'query.tail', message: 'Too small', value: '-1' }`. */
export interface ProblemFieldError {
  location: string
  message: string
  value: unknown
}

export interface Problem {
  type: string
  title: string
  status: number
  detail: string
  instance: string
  errors: ProblemFieldError[]
  /** Same text as `detail`, for clients that read `{error}` (the original web client). */
  error: string
}

const titles: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
}

export interface ProblemInit {
  detail: string
  /** The request path the problem is about. */
  instance: string
  errors?: ProblemFieldError[]
}

/**
 * Builds a Problem body. `type` stays `about:blank` (RFC 9457 §4.2.1): the status and `title` say what
 * kind of problem it is, `detail` says what happened to this request.
 */
export function problem(status: number, { detail, instance, errors = [] }: ProblemInit): Problem {
  return { type: 'about:blank', title: titles[status] ?? 'Error', status, detail, instance, errors, error: detail }
}
