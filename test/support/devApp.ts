/**
 * @module test/support/devApp
 * Starts the whole system as a user does (`npm start` at the repository root) in a child process with
 * its own data folder and ports, waits for its ready line, and stops it with Ctrl-C (SIGINT to the
 * process group).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

export interface DevAppCredentials {
  adminEmail: string
  adminPassword: string
  daemonUsername: string
  daemonPassword: string
  /** The emulator's keys of this data folder (dev-app/src/start/credentials.ts). */
  storageAccessKey: string
  streamApiKey: string
  webhookSecret: string
  /** The second zone's and the second library's (the `documents` and `private-videos` collections). */
  documentsAccessKey: string
  privateStreamApiKey: string
  privateWebhookSecret: string
}

export interface RunningDevApp {
  cmsUrl: string
  daemonUrl: string
  emulatorUrl: string
  dataDir: string
  credentials: DevAppCredentials
  /** Everything the start command printed so far. */
  output(): string
  /** Ctrl-C: SIGINT to the whole process group, as a terminal sends it. */
  stop(): Promise<void>
}

const repoRoot = new URL('../..', import.meta.url).pathname

export async function startDevApp(options: {
  ports: { cms: number; daemon: number; emulator: number }
  dataDir?: string
  readyTimeoutMs: number
  /** Extra environment, e.g. `DATABASE_URI`. */
  env?: Record<string, string>
}): Promise<RunningDevApp> {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'dev-app-e2e-'))
  const { cms, daemon, emulator } = options.ports
  const child: ChildProcess = spawn('npm', ['start'], {
    cwd: repoRoot,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      CMS_PORT: String(cms),
      DAEMON_PORT: String(daemon),
      EMULATOR_PORT: String(emulator),
      CMS_URL: `http://localhost:${cms}`,
      DEV_APP_DATA_DIR: dataDir,
      ...options.env,
    },
  })
  let output = ''
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`dev-app not ready in ${options.readyTimeoutMs} ms:\n${output.slice(-3000)}`)), options.readyTimeoutMs)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (process.env.E2E_VERBOSE) process.stdout.write(chunk)
      if (/\[dev-app\] ready in [\d.]+ s/.test(output)) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    void exited.then(() => {
      clearTimeout(timer)
      reject(new Error(`dev-app exited before it was ready:\n${output.slice(-3000)}`))
    })
  })
  const stop = async () => {
    if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGINT')
    const timer = setTimeout(() => child.pid && process.kill(-child.pid, 'SIGKILL'), 30_000)
    await exited
    clearTimeout(timer)
  }
  try {
    await ready
  } catch (error) {
    await stop()
    throw error
  }
  const credentials = JSON.parse(readFileSync(path.join(dataDir, 'credentials.json'), 'utf8')) as DevAppCredentials
  return {
    cmsUrl: `http://localhost:${cms}`,
    daemonUrl: `http://localhost:${daemon}`,
    emulatorUrl: `http://127.0.0.1:${emulator}`,
    dataDir,
    credentials,
    output: () => output,
    stop,
  }
}
