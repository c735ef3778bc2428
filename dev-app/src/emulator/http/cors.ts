/**
 * @module emulator/http/cors
 * CORS for the endpoints a browser calls directly (S3 presigned PUT, CDN, stream CDN).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'

/** Headers for an actual (non-preflight) response: any origin, as the host's public endpoints do. */
export function corsHeaders(req: IncomingMessage, expose: string[] = []): Record<string, string> {
  const origin = req.headers.origin
  return {
    'Access-Control-Allow-Origin': origin ?? '*',
    ...(origin ? { Vary: 'Origin' } : {}),
    ...(expose.length ? { 'Access-Control-Expose-Headers': expose.join(', ') } : {}),
  }
}

/** Answers a preflight (204) allowing `methods` and whatever headers the browser asks for. */
export function answerPreflight(req: IncomingMessage, res: ServerResponse, methods: string[], expose: string[] = []): void {
  const requested = req.headers['access-control-request-headers']
  res.writeHead(204, {
    ...corsHeaders(req, expose),
    'Access-Control-Allow-Methods': methods.join(', '),
    ...(requested ? { 'Access-Control-Allow-Headers': requested } : {}),
    'Access-Control-Max-Age': '600',
  })
  res.end()
}
