/**
 * @module plugin-openapi/test/support/runningDevApp
 * The repository's dev-app as its README starts it (`npm start` at the root: the CMS's production build,
 * the host emulator and the backup daemon), in a throwaway data folder on free ports, stopped with Ctrl-C
 * (SIGINT to its process group). The first start in a checkout builds the admin panel (minutes); later ones
 * reuse the build while the sources are unchanged.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import type { DevAppAccess } from '../conformance/devAppTargets.js'

export interface RunningDevApp extends DevAppAccess {
  /** Everything the start command printed so far. */
  output(): string
  stop(): Promise<void>
}

const repoRoot = new URL('../../..', import.meta.url).pathname

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

export async function startDevApp(readyTimeoutMs: number): Promise<RunningDevApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'openapi-dev-app-'))
  const [cms, daemon, emulator] = [await freePort(), await freePort(), await freePort()]
  const cmsUrl = `http://localhost:${cms}`
  const child = spawn('npm', ['start'], {
    cwd: repoRoot,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, CMS_PORT: String(cms), DAEMON_PORT: String(daemon), EMULATOR_PORT: String(emulator), CMS_URL: cmsUrl, DEV_APP_DATA_DIR: dataDir },
  })
  let output = ''
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  const stop = async () => {
    if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGINT')
    const timer = setTimeout(() => child.pid && process.kill(-child.pid, 'SIGKILL'), 30_000)
    await exited
    clearTimeout(timer)
    rmSync(dataDir, { recursive: true, force: true })
  }
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`dev-app not ready in ${readyTimeoutMs} ms:\n${output.slice(-3000)}`)), readyTimeoutMs)
      const onData = (chunk: Buffer) => {
        output += chunk.toString()
        if (/\[dev-app\] ready in [\d.]+ s/.test(output)) {
          clearTimeout(timer)
          resolve()
        }
      }
      child.stdout.on('data', onData)
      child.stderr.on('data', onData)
      void exited.then(() => {
        clearTimeout(timer)
        reject(new Error(`dev-app exited before it was ready:\n${output.slice(-3000)}`))
      })
    })
  } catch (error) {
    await stop()
    throw error
  }
  const credentials = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')) as DevAppAccess['credentials']
  return { cmsUrl, daemonUrl: `http://localhost:${daemon}`, credentials, output: () => output, stop }
}
