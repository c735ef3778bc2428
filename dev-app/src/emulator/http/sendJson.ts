/**
 * @module emulator/http/sendJson
 * JSON and plain answers shared by every upstream.
 */
import type { ServerResponse } from 'node:http'

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  })
  res.end(text)
}

export function sendText(
  res: ServerResponse,
  status: number,
  text: string,
  contentType = 'text/plain; charset=utf-8',
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { ...headers, 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text) })
  res.end(text)
}
