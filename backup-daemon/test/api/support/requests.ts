/**
 * @module test/api/support/requests
 * Small helpers for in-process requests: log in and keep the cookie, parse `Set-Cookie`.
 */
import type { Hono } from 'hono'
import { testPassword, testUser } from './testConfig.js'

type AnyApp = Hono<any, any, any>

export function postJson(app: AnyApp, path: string, body: unknown, headers: Record<string, string> = {}) {
  return app.request(path, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) })
}

/** Logs in with the test credentials and returns the `Cookie` header value to send. */
export async function loginCookie(app: AnyApp): Promise<string> {
  const res = await postJson(app, '/api/v1/auth/login', { username: testUser, password: testPassword })
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${await res.text()}`)
  return cookiePair(res)
}

/** `name=value` of the session cookie set by a response. */
export function cookiePair(res: Response): string {
  const header = res.headers.get('set-cookie')
  if (!header) throw new Error('no Set-Cookie')
  return header.split(';')[0]!
}

/** The attributes of a `Set-Cookie` header as a lower-cased map (`httponly` -> ''). */
export function cookieAttributes(header: string): Map<string, string> {
  const [, ...parts] = header.split(';').map((p) => p.trim())
  return new Map(
    parts.map((p) => {
      const [k, ...v] = p.split('=')
      return [k!.toLowerCase(), v.join('=')]
    }),
  )
}
