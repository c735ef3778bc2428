/**
 * @module test/storages/support/tcpCutProxy
 * A TCP proxy in front of a server that speaks anything (the sshd): it forwards both ways until
 * `cutAfter(bytes)` is armed, then kills every connection once that many more bytes went upstream,
 * as a network failure would in the middle of an upload.
 */
import { connect, createServer, type Socket } from 'node:net'

export interface TcpCutProxy {
  port: number
  /** Cut all connections after `bytes` more bytes from clients; `undefined` to just forward. */
  cutAfter(bytes: number | undefined): void
  /** Connections cut so far. */
  cuts: number
  close(): Promise<void>
}

export async function startTcpCutProxy(host: string, port: number): Promise<TcpCutProxy> {
  const sockets = new Set<Socket>()
  let budget: number | undefined
  const proxy: TcpCutProxy = {
    port: 0,
    cuts: 0,
    cutAfter: (bytes) => (budget = bytes),
    close: async () => {},
  }
  const server = createServer((client) => {
    const upstream = connect(port, host)
    sockets.add(client).add(upstream)
    const drop = () => {
      client.destroy()
      upstream.destroy()
      sockets.delete(client)
      sockets.delete(upstream)
    }
    client.on('data', (chunk: Buffer) => {
      if (budget !== undefined) {
        budget -= chunk.length
        if (budget <= 0) {
          budget = undefined
          proxy.cuts++
          for (const socket of sockets) socket.destroy()
          sockets.clear()
          return
        }
      }
      upstream.write(chunk)
    })
    upstream.pipe(client)
    client.on('error', drop).on('close', drop)
    upstream.on('error', drop).on('close', drop)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  proxy.port = (server.address() as { port: number }).port
  proxy.close = () =>
    new Promise((resolve) => {
      for (const socket of sockets) socket.destroy()
      server.close(() => resolve())
    })
  return proxy
}
