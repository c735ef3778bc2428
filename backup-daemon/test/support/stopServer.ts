/**
 * @module test/support/stopServer
 * Ends a throwaway server the tests started (a child process) and removes its folder. Safe to call twice
 * and after the process died on its own.
 */
import type { ChildProcess } from 'node:child_process'
import { rm } from 'node:fs/promises'

export async function stopServer(child: ChildProcess, dir: string, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill(signal)
    await exited
  }
  await rm(dir, { recursive: true, force: true })
}
