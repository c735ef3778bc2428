/**
 * @module test/progress/support/slowDumpDaemon
 * A real daemon process whose `mysql` source's dump tool is a stand-in (`mysqldump` on the child's
 * PATH) that copies a FIFO: the test decides when the dump's bytes arrive and when it ends, so a run
 * is held in the middle deterministically (no sleeps, no timing). Also the session login and a small
 * SSE reader for the progress stream.
 *
 * Why a stand-in and not the real `mariadb-dump` against a throwaway `mariadbd` (which runs here, see
 * `test/sources/mysql.test.ts`): these tests check the daemon's progress accounting and how the UI and
 * the terminal show it, and assert exact byte counts at moments the test chooses (e.g. `bytesRead` is
 * the site's bytes plus exactly the first half written, while the dump is still open). A real dump
 * cannot be paused at a chosen byte, nor made to hold still until the test lets it finish; its size
 * and timing come from the server. The real tool (its argv, password handling and dump) is tested
 * against a real server in `test/sources/mysql.test.ts`.
 */
import { execFileSync, spawn } from 'node:child_process'
import { chmodSync, createWriteStream, mkdirSync, writeFileSync, type WriteStream } from 'node:fs'
import { join } from 'node:path'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { hashPassword } from '../../../src/auth/password.js'
import { spawnDaemon } from '../../api/support/daemonProcess.js'

const bin = fileURLToPath(new URL('../../../bin/backup-daemon.js', import.meta.url))
export const operator = { username: 'operator', password: 'progress-test-password' }

/**
 * A FIFO at `path` and a `mysqldump` in `<dir>/bin` that writes the FIFO's bytes to stdout: a stand-in
 * on purpose, so the test holds the dump open and decides its exact bytes (see the module comment).
 */
export function fakeDumpTool(dir: string): { binDir: string; fifo: string } {
  const binDir = join(dir, 'bin')
  mkdirSync(binDir, { recursive: true })
  const fifo = join(dir, 'dump.fifo')
  execFileSync('mkfifo', [fifo])
  writeFileSync(join(binDir, 'mysqldump'), `#!/bin/sh\nexec cat '${fifo}'\n`)
  chmodSync(join(binDir, 'mysqldump'), 0o755)
  return { binDir, fifo }
}

/** Opens the FIFO for writing (resolves once the stand-in dump tool has opened it for reading). */
export async function openFifo(fifo: string): Promise<WriteStream> {
  const stream = createWriteStream(fifo)
  await once(stream, 'open')
  return stream
}

export async function writeConfig(dir: string, config: Record<string, unknown>): Promise<string> {
  const file = join(dir, 'config.yaml')
  const full = {
    dataDir: join(dir, 'data'),
    server: {
      address: '127.0.0.1:0',
      secret: 'progress-test-secret-0123456789abcdef012345',
      auth: { enabled: true, username: operator.username, password: await hashPassword(operator.password), tokenExpiration: 30 },
      ui: { enabled: true },
    },
    logs: { directory: join(dir, 'data', 'logs') },
    ...config,
  }
  // JSON is valid YAML.
  writeFileSync(file, JSON.stringify(full, null, 2))
  return file
}

export interface Daemon {
  url: string
  output(): string
  stop(): Promise<number | null>
}

/** The job the tests hold mid-run: a local tree and the stand-in MySQL dump, as tar.gz to two local storages. */
export function slowJob(dir: string) {
  return {
    name: 'slow',
    compression: 'tar.gz',
    sources: [
      { type: 'local', name: 'site', path: join(dir, 'site') },
      { type: 'mysql', name: 'db', database: 'app' },
    ],
    storages: [
      { type: 'local', name: 'disk-a', path: join(dir, 'store-a') },
      { type: 'local', name: 'disk-b', path: join(dir, 'store-b') },
    ],
  }
}

/** The real daemon with the stand-in dump tool first on its PATH. */
export function startDaemon(configFile: string, binDir: string): Promise<Daemon> {
  return spawnDaemon(configFile, { pathPrefix: binDir, startTimeoutMs: 30_000 })
}

export async function login(url: string): Promise<string> {
  const headers = { 'content-type': 'application/json', origin: url }
  const res = await fetch(`${url}/api/v1/auth/login`, { method: 'POST', headers, body: JSON.stringify(operator) })
  if (res.status !== 200) throw new Error(`login failed: ${res.status}`)
  return res.headers.get('set-cookie')!.split(';')[0]!
}

/** `backup-daemon run JOB` beside the daemon; resolves with the exit code. */
export function runOnce(configFile: string, job: string, binDir: string): Promise<number | null> {
  const env = { ...process.env, FORCE_COLOR: '', PATH: `${binDir}:${process.env.PATH ?? ''}` }
  const child = spawn(process.execPath, [bin, 'run', job, '--config', configFile], { stdio: 'ignore', env })
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code) => resolve(code))
  })
}
