/**
 * @module test/support/freePort
 * A TCP port of 127.0.0.1 that nothing listens on right now (the kernel's pick for port 0), so tests
 * running at the same time on this machine never fight over fixed ports.
 */
import { createServer } from 'node:net'

export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}
