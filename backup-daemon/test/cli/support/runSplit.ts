/**
 * @module test/cli/support/runSplit
 * The real command as a child process (no terminal, no colours) with stdout and stderr kept apart:
 * `--json` output is read from stdout alone (stderr may hold Node's own warnings, e.g. the AWS SDK's).
 */
import { spawn } from 'node:child_process'
import { daemonBin } from '../../support/runCli.js'

export interface SplitResult {
  code: number | null
  stdout: string
  stderr: string
}

export function runSplit(args: string[], { cwd, env = {} }: { cwd: string; env?: Record<string, string> }): Promise<SplitResult> {
  const child = spawn(process.execPath, [daemonBin, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '', ...env } })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })))
}
