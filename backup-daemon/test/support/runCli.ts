/**
 * @module test/support/runCli
 * Runs the real command (`bin/backup-daemon.js`) as a child process, without colours, and returns its
 * exit code and its stdout and stderr together; as another user when asked (`setpriv`, needs root).
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

export const daemonBin = fileURLToPath(new URL('../../bin/backup-daemon.js', import.meta.url))

export function runCli(
  args: string[],
  { cwd, env = {}, user }: { cwd?: string; env?: Record<string, string>; user?: string } = {},
): Promise<{ code: number | null; out: string }> {
  // `user`: run as that user (`setpriv`, the tests run as root), as the daemon runs under systemd (not root).
  const command = user ? ['setpriv', `--reuid=${user}`, '--regid=nogroup', '--clear-groups', process.execPath] : [process.execPath]
  const child = spawn(command[0]!, [...command.slice(1), daemonBin, ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, FORCE_COLOR: '', ...env },
  })
  let out = ''
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()))
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out })))
}
