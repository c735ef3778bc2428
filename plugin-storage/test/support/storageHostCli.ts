/**
 * @module test/support/storageHostCli
 * Runs one of the plugin's commands through Payload's own CLI on the test config file (`cliConfig.ts`),
 * as a user runs it in the app's folder: `npx payload storage-host ...` on Payload 3, the project's own
 * `payload storage-host:...` with Node 24 on Payload 4.
 */
import { spawn } from 'node:child_process'
import { dirname } from 'node:path'

import type { CliConfigInput } from './cliConfig.js'

export interface CliRun {
  code: number | null
  stdout: string
  stderr: string
}

export interface CliCommand {
  /** The program and its arguments, e.g. `['npx', '--no-install', 'payload', 'storage-host', 'check']`. */
  argv: string[]
  /** The app's folder; `cliConfig.ts` is found from it at `configPath`. */
  cwd: string
  configPath: string
  /** A Node binary to put first on PATH (Payload 4 wants Node 24). */
  node?: string
  /** More environment (the S3 credentials of `migrate --from s3`). */
  env?: Record<string, string>
}

export function runStorageHostCli({ argv, configPath, cwd, env, node }: CliCommand, input: CliConfigInput): Promise<CliRun> {
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd,
    env: {
      ...process.env,
      NODE_OPTIONS: '',
      PAYLOAD_CONFIG_PATH: configPath,
      ...(node ? { PATH: `${dirname(node)}:${process.env.PATH ?? ''}` } : {}),
      STORAGE_HOST_CLI_INPUT: JSON.stringify(input),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('close', (code) => resolve({ code, stderr, stdout }))
  })
}
