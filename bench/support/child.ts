/**
 * @module bench/support/child
 * Node child processes that serve HTTP for a benchmark: started, awaited until they print where they
 * listen, and stopped.
 */
import { spawn, type ChildProcess } from 'node:child_process'

/** Starts `node <args>` (`options.node`, else the bench's own Node) and resolves with the first `listening on http://...` URL it prints. */
export function startChild(
  args: string[],
  options: { cwd: string; env?: Record<string, string>; node?: string },
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(options.node ?? process.execPath, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  return new Promise((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1]
      if (url) resolve({ child, url })
    })
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code} before listening:\n${out}`)))
  })
}

/** SIGTERM, resolved once the child has exited (at once if it already has). */
export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    child.once('exit', () => resolve())
    child.kill('SIGTERM')
  })
}
