/**
 * @module upstream/requestJson
 * Small JSON requests over node:http(s) with keep-alive agents. Used for the Stream API calls on
 * tus-auth's path: Node 20's `fetch` adds about a millisecond of overhead per call, a visible share of
 * tus-auth's latency (README, benchmarks). Bulk transfers keep using `fetch` with streams.
 */
import http from 'node:http'
import https from 'node:https'

import { UpstreamError } from '../errors.js'

const agents = { http: new http.Agent({ keepAlive: true, maxSockets: 32 }), https: new https.Agent({ keepAlive: true, maxSockets: 32 }) }

export interface JsonResponse {
  status: number
  text: string
}

type JsonRequest = { method?: string; headers: Record<string, string>; body?: string }

/**
 * Sends a request with an optional JSON body; answers status and body text, or throws when unreachable.
 * A kept-alive socket the host closed just as it was reused (its idle timeout) fails before the host read
 * anything: that one case is sent again once on a new connection, as Node's documentation advises
 * (`request.reusedSocket`). Under 20 parallel tus-auth calls it answered 500 every few hundred requests.
 */
export async function requestJson(operation: string, url: string, init: JsonRequest): Promise<JsonResponse> {
  try {
    return await sendOnce(url, init)
  } catch (err) {
    if (!(err instanceof StaleSocketError)) throw new UpstreamError(operation, 0, { cause: err })
    return await sendOnce(url, init).catch((again: unknown) => {
      throw new UpstreamError(operation, 0, { cause: again instanceof StaleSocketError ? again.cause : again })
    })
  }
}

/** A reused keep-alive socket was reset before any answer came. */
class StaleSocketError extends Error {}

function sendOnce(url: string, init: JsonRequest): Promise<JsonResponse> {
  const target = new URL(url)
  const secure = target.protocol === 'https:'
  const headers: Record<string, string> = { ...init.headers }
  if (init.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(init.body))
  return new Promise((resolve, reject) => {
    let answered = false
    const req = (secure ? https : http).request(target, { agent: secure ? agents.https : agents.http, headers, method: init.method ?? 'GET' }, (res) => {
      answered = true
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }))
      res.on('error', reject)
    })
    req.setTimeout(30_000, () => req.destroy(new Error('timeout')))
    req.on('error', (err: NodeJS.ErrnoException) => {
      const stale = req.reusedSocket && !answered && (err.code === 'ECONNRESET' || err.code === 'EPIPE')
      reject(stale ? new StaleSocketError('stale keep-alive socket', { cause: err }) : err)
    })
    req.end(init.body)
  })
}
