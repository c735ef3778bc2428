/**
 * @module storages/webdav/davRequest
 * One WebDAV request over node:http(s), so request and response bodies stream with backpressure
 * (fetch reads stream bodies ahead of a slow connection). Basic authentication from the storage's
 * credentials, never from the URL and never in an error message. A non-2xx answer (other than those
 * the caller accepts) becomes an `UpstreamStatusError`.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { NoAnswerError } from '../remote/NoAnswerError.js'
import { UpstreamStatusError } from '../remote/UpstreamStatusError.js'

export interface DavRequest {
  method: 'GET' | 'PUT' | 'DELETE' | 'MKCOL' | 'MOVE' | 'PROPFIND'
  url: string
  headers?: Record<string, string>
  body?: Readable | string
  /** Statuses answered without an error besides 2xx (e.g. 404 for "already gone"). */
  accept?: number[]
  signal?: AbortSignal
  /**
   * Longest silence on the socket (no byte either way) in ms, then the request fails with a
   * `NoAnswerError` naming the server; for a GET only until the headers. @default 60000
   */
  idleTimeoutMs?: number
}

export interface DavCredentials {
  username?: string
  password?: string
}

/** Resolves with the response once its headers arrived; its body is for the caller to read or drop. */
export async function davRequest(
  credentials: DavCredentials,
  { method, url, headers = {}, body, accept = [], signal, idleTimeoutMs = 60_000 }: DavRequest,
): Promise<IncomingMessage> {
  const target = new URL(url)
  const auth =
    credentials.username !== undefined
      ? { Authorization: `Basic ${Buffer.from(`${credentials.username}:${credentials.password ?? ''}`).toString('base64')}` }
      : {}
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest
  const request = send(target, { method, headers: { ...auth, ...headers }, signal })
  request.setTimeout(idleTimeoutMs, () => request.destroy(new NoAnswerError(target.origin, idleTimeoutMs)))
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    request.once('response', resolve)
    request.once('error', reject)
  })
  try {
    if (body === undefined) request.end()
    else if (typeof body === 'string') request.end(body)
    else await pipeline(body, request)
    const answer = await response
    const status = answer.statusCode ?? 0
    // A download is read at its consumer's pace (a slow client pauses the socket): no idle limit once it started.
    if (method === 'GET') request.setTimeout(0)
    if ((status >= 200 && status <= 299) || accept.includes(status)) return answer
    const text = Buffer.concat(await answer.toArray()).toString('utf8')
    throw new UpstreamStatusError(
      status,
      `WebDAV server answered ${status} to ${method} ${target.pathname}: ${
        text
          .replace(/<[^>]*>/g, ' ')
          .replace(/\s+/g, ' ')
          .trim()
          .slice(0, 200) || '(no body)'
      }`,
    )
  } catch (err) {
    if (typeof body === 'object') body.destroy()
    request.destroy()
    throw err
  }
}

/** Reads and drops a response body (so the socket can be reused). */
export async function drain(response: IncomingMessage): Promise<void> {
  response.resume()
  await new Promise((resolve) => {
    response.once('end', resolve)
    response.once('close', resolve)
    response.once('error', resolve)
  })
}
