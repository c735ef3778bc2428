/**
 * @module sources/support/freePort
 * A loopback TCP port nobody listens on right now, for a server that takes a port number rather than 0 (a
 * drill's temporary redis-server; the tests' servers).
 */
import { createServer } from 'node:net'

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}
