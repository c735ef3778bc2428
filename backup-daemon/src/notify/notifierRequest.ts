/**
 * @module notify/notifierRequest
 * The HTTP side shared by the URL notifiers (webhook, healthchecks): a URL's credentials become a header,
 * and a failure says what went wrong without the URL.
 *
 * - `https://user:pass@host/hook`: `fetch` refuses to build a request from a URL with credentials, so such
 *   a notifier never delivered. The userinfo is taken out of the URL and sent the way a browser or curl
 *   sends it, `Authorization: Basic base64(user:pass)` (percent-escapes decoded first). An `Authorization`
 *   of the entry's own `headers` wins over it.
 * - For many webhook services (chat incoming hooks, healthchecks' ping URLs) the path or the query *is*
 *   the secret. A failure's text from `fetch` can quote the URL it was given ("Failed to parse URL from
 *   …"); it is reduced to the cause (`connect ECONNREFUSED 127.0.0.1:9`, `timed out after 10000 ms`,
 *   `HTTP 500`) with every spelling of the URL, its path and its query cut out.
 */

export interface NotifierRequest {
  /** The URL without userinfo. */
  url: string
  /** `Basic …` for a URL that had userinfo, else undefined. */
  authorization: string | undefined
}

function decoded(part: string): string {
  try {
    return decodeURIComponent(part)
  } catch {
    return part
  }
}

/** `url` split into the URL to fetch and the `Authorization` its userinfo stands for. */
export function notifierRequest(url: string): NotifierRequest {
  const parsed = new URL(url)
  if (!parsed.username && !parsed.password) return { url, authorization: undefined }
  const credentials = `${decoded(parsed.username)}:${decoded(parsed.password)}`
  parsed.username = ''
  parsed.password = ''
  return { url: parsed.href, authorization: `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}` }
}

/** `headers` with `authorization` added unless they carry one (any spelling) already. */
export function withAuthorization(headers: Record<string, string>, authorization: string | undefined): Record<string, string> {
  if (!authorization || Object.keys(headers).some((name) => name.toLowerCase() === 'authorization')) return headers
  return { ...headers, authorization }
}

/**
 * A `fetch` failure as a message that never holds `url` (in any of its spellings), its path or its query:
 * a timeout as such, otherwise the error and its cause (the socket's error code and address).
 */
export function describeFetchFailure(err: unknown, url: string, timeoutMs: number): string {
  const error = err as (Error & { cause?: unknown }) | undefined
  if (error?.name === 'TimeoutError') return `timed out after ${timeoutMs} ms`
  const cause = error?.cause instanceof Error ? error.cause : undefined
  let text = cause && cause.message !== error?.message ? `${error?.message ?? String(err)}: ${cause.message}` : (error?.message ?? String(err))
  let parsed: URL | undefined
  try {
    parsed = new URL(url)
  } catch {
    // Not a URL at all: only the text as given is cut out below.
  }
  const shown = parsed ? `${parsed.protocol}//${parsed.host}/…` : '(the URL)'
  for (const whole of new Set([url, parsed?.href])) if (whole) text = text.split(whole).join(shown)
  // Then the path and the query on their own (a bare "/" tells nothing), the longer first.
  for (const part of [parsed && `${parsed.pathname}${parsed.search}`, parsed?.search, parsed?.pathname]) {
    if (part && part !== '/') text = text.split(part).join('…')
  }
  return text
}
