/**
 * @module test/support/freePort
 * A TCP port of 127.0.0.1 that was free a moment ago (for servers that cannot listen on port 0).
 */
import { createServer } from 'node:net'

export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}
