/**
 * @module server/clientAddress
 * The peer address of a request, for rate limits and the log. Proxies are not trusted: a forwarded
 * header is whatever the client wants it to be.
 */
import type { Context } from 'hono'
import type { AppEnv } from './appEnv.js'

export function clientAddress(c: Context<AppEnv>): string {
  return c.env?.incoming?.socket.remoteAddress ?? 'unknown'
}

/** A client-supplied string made safe for one log line: no control characters (newlines, ANSI), bounded length. */
export function logSafe(value: string, max = 64): string {
  // eslint-disable-next-line no-control-regex -- stripping control characters is the point
  const clean = value.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?')
  return clean.length > max ? `${clean.slice(0, max)}...` : clean
}
