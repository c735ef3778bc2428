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

/** Sends a request with an optional JSON body; answers status and body text, or throws when unreachable. */
export function requestJson(operation: string, url: string, init: { method?: string; headers: Record<string, string>; body?: string }): Promise<JsonResponse> {
  const target = new URL(url)
  const secure = target.protocol === 'https:'
  const headers: Record<string, string> = { ...init.headers }
  if (init.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(init.body))
  return new Promise((resolve, reject) => {
    const req = (secure ? https : http).request(target, { agent: secure ? agents.https : agents.http, headers, method: init.method ?? 'GET' }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }))
      res.on('error', (err) => reject(new UpstreamError(operation, 0, { cause: err })))
    })
    req.setTimeout(30_000, () => req.destroy(new Error('timeout')))
    req.on('error', (err) => reject(new UpstreamError(operation, 0, { cause: err })))
    req.end(init.body)
  })
}
