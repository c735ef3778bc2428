/**
 * @module test/support/runCommand
 * Runs a command from the repository's root to its end, as a person would type it (`npm run …`): resolves
 * with its stdout and stderr together, rejects with their last 4000 characters on a non-zero exit.
 * `E2E_VERBOSE=1` shows the output as it comes.
 */
import { spawn } from 'node:child_process'

const repoRoot = new URL('../..', import.meta.url).pathname

export function runCommand(command: string, args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    const take = (chunk: Buffer) => {
      out += chunk.toString()
      if (process.env.E2E_VERBOSE) process.stdout.write(chunk)
    }
    child.stdout.on('data', take)
    child.stderr.on('data', take)
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${out.slice(-4000)}`))))
  })
}
