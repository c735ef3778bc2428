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

let shared: Promise<LiveCms> | undefined

/** Starts (once) the fixture CMS. */
export function startLiveCms(): Promise<LiveCms> {
  shared ??= (async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'openapi-cms-'))
    const config = await buildFixtureConfig({ dataDir })
    const payload = await getPayload({ config })
    let origin = ''
    const server: Server = createServer((req, res) => {
      void (async () => {
        try {
          const response = await handleEndpoints({ config, request: toRequest(req, origin) })
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
