/**
 * @module start/roundRobinProxy
 * The small load balancer in front of several CMS instances (`CMS_INSTANCES=2 npm start`): each request goes
 * to the next instance in turn, as nginx's default `upstream` does, so one editor's page, its API calls and
 * the host's webhooks land on different processes. Every answer says which instance gave it
 * (`X-Dev-App-Instance: 1`…), so a browser's network panel, and the tests, can see the spread, and each write
 * to the API (a save, tus-auth, a webhook) is printed with the instance that answered it. A request that sends
 * `X-Dev-App-Instance: N` itself goes to instance N (to try one instance with curl, or to make a test send the
 * authorisation to one instance and the save to the other).
 */
import { Agent, createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http'
import { createServer as createNetServer } from 'node:net'

export interface ProxyTarget {
  host: string
  port: number
}

export interface RoundRobinProxy {
  /** Requests sent to each instance so far (index 0 is instance 1). */
  served(): number[]
  close(): Promise<void>
}

/** A free TCP port on `host`, for an instance the proxy alone talks to. */
export async function freePort(host: string): Promise<number> {
  const server = createNetServer()
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, host, resolve))
  const address = server.address()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return typeof address === 'object' && address ? address.port : 0
}

/** Requests without a body can be sent to the next instance when one does not answer at all. */
const resendable = (req: IncomingMessage) => req.method === 'GET' || req.method === 'HEAD'

export const INSTANCE_HEADER = 'x-dev-app-instance'

/** The instance a request asks for (1-based in the header), when it names one that exists. */
function pinnedIndex(req: IncomingMessage, count: number): number | undefined {
  const asked = Number(req.headers[INSTANCE_HEADER])
  return Number.isInteger(asked) && asked >= 1 && asked <= count ? asked - 1 : undefined
}

/** API writes are worth a line (which instance saved, authorised, took the webhook); pages and reads are not. */
const isApiWrite = (req: IncomingMessage) => !resendable(req) && req.method !== 'OPTIONS' && (req.url ?? '').startsWith('/api/')

export async function startRoundRobinProxy(options: {
  host: string
  port: number
  targets: ProxyTarget[]
  /** Receives `POST /api/images → cms-2 (201)` for each API write; never the query (it can carry tokens). */
  log?: (line: string) => void
}): Promise<RoundRobinProxy> {
  const { targets } = options
  const agent = new Agent({ keepAlive: true })
  const served = targets.map(() => 0)
  let next = 0

  const forward = (req: IncomingMessage, res: ServerResponse, index: number, triesLeft: number) => {
    const target = targets[index]!
    const forwardedFor = [req.headers['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', ')
    const upstream = httpRequest(
      { agent, headers: { ...req.headers, 'x-forwarded-for': forwardedFor }, host: target.host, method: req.method, path: req.url, port: target.port },
      (answer) => {
        served[index]!++
        if (isApiWrite(req)) options.log?.(`${req.method} ${(req.url ?? '').split('?')[0]} → cms-${index + 1} (${answer.statusCode})`)
        res.writeHead(answer.statusCode ?? 502, { ...answer.headers, [INSTANCE_HEADER]: String(index + 1) })
        answer.pipe(res)
      },
    )
    upstream.once('error', (error) => {
      if (res.headersSent) return res.destroy()
      if (triesLeft > 0 && resendable(req)) return forward(req, res, (index + 1) % targets.length, triesLeft - 1)
      res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' }).end(`CMS instance ${index + 1} did not answer (${error.message})\n`)
    })
    // A browser that went away mid-answer: stop the instance's work too.
    res.once('close', () => res.writableFinished || upstream.destroy())
    if (resendable(req)) {
      req.resume()
      upstream.end()
    } else req.pipe(upstream)
  }

  const server = createServer((req, res) => {
    const pinned = pinnedIndex(req, targets.length)
    if (pinned !== undefined) return forward(req, res, pinned, 0)
    const index = next
    next = (next + 1) % targets.length
    forward(req, res, index, targets.length - 1)
  })
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(options.port, options.host, resolve))
  return {
    served: () => [...served],
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
        agent.destroy()
      }),
  }
}
