/**
 * @module test/storages/support/faultProxy
 * A real HTTP proxy in front of an upstream (the emulator, s3rver) that can misbehave on demand:
 * answer 503 to the next N requests, or cut the connection of big uploads halfway through.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export type FaultMode = { kind: 'pass' } | { kind: 'unavailable'; count: number } | { kind: 'cutUploads'; afterBytes: number }

export interface FaultProxy {
  url: string
  mode: FaultMode
  /** Requests seen, as `METHOD path`. */
  seen: string[]
  close(): Promise<void>
}

export async function startFaultProxy(upstream: string): Promise<FaultProxy> {
  const target = new URL(upstream)
  const proxy: FaultProxy = { url: '', mode: { kind: 'pass' }, seen: [], close: async () => {} }
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    proxy.seen.push(`${req.method} ${req.url}`)
    const mode = proxy.mode
    if (mode.kind === 'unavailable' && mode.count > 0) {
      mode.count--
      req.resume()
      res.writeHead(503, { 'content-type': 'text/plain' }).end('try later')
      return
    }
    const length = Number(req.headers['content-length'] ?? 0)
    const chunked = req.headers['transfer-encoding'] === 'chunked'
    const cut = mode.kind === 'cutUploads' && (req.method === 'PUT' || req.method === 'POST') && (length > mode.afterBytes || chunked)
    const upstreamReq = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
      (upstreamRes) => {
        res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers)
        upstreamRes.pipe(res)
      },
    )
    upstreamReq.on('error', () => res.destroy())
    let received = 0
    req.on('data', (chunk: Buffer) => {
      received += chunk.length
      if (cut && received > (mode as { afterBytes: number }).afterBytes) {
        // The connection dies mid-body, as with a network failure.
        upstreamReq.destroy()
        req.socket.destroy()
        return
      }
      upstreamReq.write(chunk)
    })
    req.on('end', () => upstreamReq.end())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  proxy.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return proxy
}
