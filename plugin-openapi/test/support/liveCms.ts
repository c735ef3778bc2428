/**
 * @module plugin-openapi/test/support/liveCms
 * The fixture CMS on SQLite (a temp dir) served over real HTTP: a node:http server around Payload's
 * `handleEndpoints` (Web Request in, Response out), as @payloadcms/next does. One per process (getPayload caches).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'

import { getPayload, handleEndpoints, type Payload, type SanitizedConfig } from 'payload'

import { buildFixtureConfig } from '../fixture/fixtureConfig.js'

export interface LiveCms {
  url: string
  config: SanitizedConfig
  payload: Payload
  dataDir: string
  close(): Promise<void>
}

function toRequest(req: IncomingMessage, origin: string): Request {
  const headers = new Headers()
  for (const [k, v] of Object.entries(req.headers)) {
    if (Array.isArray(v)) for (const x of v) headers.append(k, x)
    else if (v !== undefined) headers.set(k, v)
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD'
  return new Request(new URL(req.url ?? '/', origin), {
    method: req.method,
    headers,
    body: hasBody ? (Readable.toWeb(req) as ReadableStream) : undefined,
    // @ts-expect-error Node's fetch needs duplex for streamed bodies
    duplex: 'half',
  })
}

/**
 * Serves a sanitized config over HTTP on a free port. `key` keeps Payload instances of different configs apart
 * in one process (getPayload caches per key).
 */
export async function serveCms(config: SanitizedConfig, dataDir: string, key?: string): Promise<LiveCms> {
  // The SQL adapters skip the schema push when the schema equals the one last pushed in this process (a
  // module-level cache in @payloadcms/drizzle's pushDevSchema, 3.90 and 4.x alike): a second instance of the
  // same config on a new database would start without tables. PAYLOAD_FORCE_DRIZZLE_PUSH=true makes it push anyway.
  const force = process.env.PAYLOAD_FORCE_DRIZZLE_PUSH
  if (key) process.env.PAYLOAD_FORCE_DRIZZLE_PUSH = 'true'
  let payload: Payload
  try {
    payload = await getPayload({ config, ...(key ? { key } : {}) })
  } finally {
    if (force === undefined) delete process.env.PAYLOAD_FORCE_DRIZZLE_PUSH
    else process.env.PAYLOAD_FORCE_DRIZZLE_PUSH = force
  }
  let origin = ''
  const server: Server = createServer((req, res) => {
    void (async () => {
      try {
        const response = await handleEndpoints({ config, request: toRequest(req, origin), ...(key ? { payloadInstanceCacheKey: key } : {}) })
        const headers: Record<string, string | string[]> = {}
        response.headers.forEach((v, k) => {
          if (k !== 'set-cookie') headers[k] = v
        })
        const cookies = response.headers.getSetCookie()
        if (cookies.length > 0) headers['set-cookie'] = cookies
        res.writeHead(response.status, headers)
        res.end(Buffer.from(await response.arrayBuffer()))
      } catch (err) {
        res.writeHead(500, { 'content-type': 'text/plain' })
        res.end(String(err))
      }
    })()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    config,
    dataDir,
    payload,
    url: origin,
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await payload.destroy()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

let shared: Promise<LiveCms> | undefined

/** Starts (once) the fixture CMS. */
export function startLiveCms(): Promise<LiveCms> {
  shared ??= (async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'openapi-cms-'))
    return serveCms(await buildFixtureConfig({ dataDir }), dataDir)
  })()
  return shared
}

/** Stops the CMS if it was started (root hook below). */
export async function stopLiveCms(): Promise<void> {
  if (!shared) return
  const cms = await shared
  shared = undefined
  await cms.close()
}

if (typeof after === 'function') after(stopLiveCms)
