/**
 * @module server/routes/authRoutes
 * `POST /auth/login`, `POST /auth/logout`, `GET /auth/check`: none needs a session. Logins are
 * rate-limited per client address (or known browser, `auth/deviceCookie`) and user name, and per user name
 * (`auth/accountLoginLimiter`), the account's name apart from the others (`auth/loginLimits`); failures go
 * to the system log (user name only, never the password).
 * A logout revokes the session on the server (`auth/revokedSessions`), not only the cookie.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { timingSafeEqual, createHash } from 'node:crypto'
import type { SessionEnds } from '../../auth/sessionEnds.js'
import { concurrencyGate, GateFullError } from '../../auth/concurrencyGate.js'
import { verifyPassword } from '../../auth/password.js'
import { readDeviceCookie, setDeviceCookie } from '../../auth/deviceCookie.js'
import { clearSessionCookie, readSessionCookie, setSessionCookie } from '../../auth/sessionCookie.js'
import type { RevokedSessions } from '../../auth/revokedSessions.js'
import { maxSessionSeconds, signSession, verifySession } from '../../auth/sessionToken.js'
import { formatLine } from '../../logs/formatLine.js'
import type { AppEnv, RouteDeps } from '../appEnv.js'
import { clientAddress, logSafe } from '../clientAddress.js'
import { HttpError } from '../../http/HttpError.js'
import { jsonResponse, problemResponses, publicSecurity } from '../responses.js'
import { AuthCheckSchema, LoginRequestSchema, LoginResultSchema } from '../schemas.js'

const loginRoute = createRoute({
  method: 'post',
  operationId: 'login',
  security: publicSecurity,
  path: '/auth/login',
  tags: ['auth'],
  summary: 'Log in: sets the backup_session cookie',
  description: 'With auth switched off it answers `{success: true}` and sets no cookie.',
  middleware: [
    bodyLimit({
      maxSize: 16 * 1024,
      onError: () => {
        throw new HttpError(413, { message: 'request body too large' })
      },
    }),
  ] as const,
  request: { body: { required: true, content: { 'application/json': { schema: LoginRequestSchema } } } },
  responses: {
    200: {
      ...jsonResponse(LoginResultSchema, 'Logged in'),
      headers: {
        'Set-Cookie': {
          description:
            'backup_session=<JWT>; HttpOnly; Path=/; Max-Age=<tokenExpiration*60>, and backup_device=<id>.<mac>; HttpOnly; Path=/; Max-Age=34560000 (this browser, for the login limits)',
          schema: { type: 'string' },
        },
      },
    },
    ...problemResponses(401, 413, 415, 429),
  },
})

const logoutRoute = createRoute({
  method: 'post',
  operationId: 'logout',
  security: publicSecurity,
  path: '/auth/logout',
  tags: ['auth'],
  summary: 'Log out: clears the cookie',
  responses: {
    200: {
      ...jsonResponse(LoginResultSchema, 'Cookie cleared'),
      headers: { 'Set-Cookie': { description: 'backup_session=; Max-Age=0', schema: { type: 'string' } } },
    },
    ...problemResponses(),
  },
})

const checkRoute = createRoute({
  method: 'get',
  operationId: 'checkAuth',
  security: publicSecurity,
  path: '/auth/check',
  tags: ['auth'],
  summary: 'Whether the request carries a valid session, and whether auth is on',
  responses: { 200: jsonResponse(AuthCheckSchema, 'Auth state'), ...problemResponses() },
})

/** Compares two strings in time independent of where they differ (hashing first equalises lengths). */
function sameText(a: string, b: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest()
  return timingSafeEqual(digest(a), digest(b))
}

export interface AuthRouteOptions {
  /** Sessions ended by a logout (shared with the session middleware). */
  revoked: RevokedSessions
  /** Milliseconds since the epoch. @default Date.now */
  clock?: () => number
  /** Ends the streams of a logged-out session. */
  ends?: SessionEnds
}

export function authRoutes(
  api: OpenAPIHono<AppEnv>,
  { config, engine, sessionKey, loginLimits }: RouteDeps,
  { revoked, clock = Date.now, ends }: AuthRouteOptions,
): void {
  const { auth } = config.server
  /** The claims of the request's cookie when it is a live, not logged-out session. */
  const liveSession = async (c: Context) => {
    const token = readSessionCookie(c)
    const now = clock()
    const claims = token ? await verifySession(token, sessionKey, auth.username, now) : undefined
    return claims && !revoked.has(claims.sid, now / 1000) ? claims : undefined
  }
  // Two scrypt hashes at a time leave the rest of libuv's thread pool to file reads and gzip.
  const hashes = concurrencyGate({ max: 2, maxWaiting: 32 })

  api.openapi(loginRoute, async (c) => {
    if (!auth.enabled) return c.json({ success: true }, 200)
    const client = clientAddress(c)
    const { username, password } = c.req.valid('json')
    const account = username.slice(0, 256)
    // Per address and user name: failures for made-up names (any local user shares 127.0.0.1 with the owner)
    // never spend the budget of the name the owner logs in with (issue 39 #3), nor push its counts out of the
    // bounded tables (`auth/loginLimits`); every name is limited alike, so the answers do not tell the real
    // name from the others. A browser that logged in before (`auth/deviceCookie`) has a budget of its own
    // instead, which no one sharing its address can spend, and is not held by the account's lock. Reserved
    // (counted as failed) before hashing, so concurrent guesses cannot all slip past the limit.
    const isAccount = sameText(username, auth.username)
    const { perAddress: loginLimiter, perAccount: accountLimiter } = loginLimits.of(isAccount)
    const device = readDeviceCookie(c, sessionKey, auth.username)
    const addressKey = device ? `device ${device}` : `${client} ${account}`
    const wait = loginLimiter.reserve(addressKey)
    if (wait > 0) {
      throw new HttpError(429, {
        message: `too many failed logins for this user name from this ${device ? 'browser' : 'address'}; try again later`,
        headers: { 'Retry-After': String(wait) },
      })
    }
    // Per account too: many addresses (every 127.x.y.z, an IPv6 /64) must not multiply the guesses.
    const accountWait = device ? 0 : accountLimiter.reserve(account, client)
    if (accountWait > 0) {
      loginLimiter.release(addressKey)
      throw new HttpError(429, { message: 'too many failed logins for this account; try again later', headers: { 'Retry-After': String(accountWait) } })
    }
    let passwordOk: boolean
    try {
      // Check the password even for a wrong user name so the answer takes as long either way.
      passwordOk = await hashes.run(() => verifyPassword(password, auth.password))
    } catch (err) {
      if (!(err instanceof GateFullError)) throw err
      loginLimiter.release(addressKey)
      if (!device) accountLimiter.release(account)
      throw new HttpError(429, { message: 'too many logins in progress; try again later', headers: { 'Retry-After': '1' } })
    }
    if (!(isAccount && passwordOk)) {
      // Stamped here as WARN: a plain message gets its level guessed from its text, and the user name is
      // the client's ("error" in it made the line an ERROR).
      engine.logs.append({ kind: 'system' }, formatLine('warn', `auth: failed login for user "${logSafe(username)}" from ${client}`))
      throw new HttpError(401, { message: 'invalid username or password' })
    }
    loginLimiter.succeeded(addressKey)
    accountLimiter.succeeded(account, client)
    // The session's cookie first: clients that read the first Set-Cookie take the session.
    setSessionCookie(c, await signSession({ key: sessionKey, username: auth.username, minutes: auth.tokenExpiration, now: clock() }), auth)
    setDeviceCookie(c, sessionKey, auth, device)
    return c.json({ success: true }, 200)
  })

  api.openapi(logoutRoute, async (c) => {
    // The session ends on the server too: its tokens (refreshed ones included) are refused from now on
    // until the last of them would have expired anyway.
    const claims = await liveSession(c)
    if (claims) {
      revoked.revoke(claims.sid, Math.max(claims.exp, claims.authTime + maxSessionSeconds(auth.tokenExpiration)), clock() / 1000)
      ends?.end(claims.sid)
    }
    clearSessionCookie(c, auth)
    return c.json({ success: true }, 200)
  })

  api.openapi(checkRoute, async (c) => {
    if (!auth.enabled) return c.json({ authenticated: true, authEnabled: false }, 200)
    return c.json({ authenticated: Boolean(await liveSession(c)), authEnabled: true }, 200)
  })
}
