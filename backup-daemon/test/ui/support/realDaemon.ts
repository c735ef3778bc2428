/**
 * @module test/ui/support/realDaemon
 * Starts the real daemon as a child process (`bin/backup-daemon.js serve --config <file>`) on a free
 * port with a config written into a temp folder, and stops it (SIGTERM, then SIGKILL) afterwards.
 * Used by the browser tests and the UI benchmarks.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { stringify } from 'yaml'
import { hashPassword } from '../../../src/auth/password.js'

const bin = new URL('../../../bin/backup-daemon.js', import.meta.url).pathname

export const uiUser = 'operator'
export const uiPassword = 'a long and proper test password'

export interface DaemonJob {
  name: string
  schedule?: string
  active?: boolean
  compression?: 'tar' | 'tar.gz'
  sources: { type: 'local'; name: string; path: string }[]
  storages: { type: 'local'; name: string; path: string }[]
  split?: { chunkSize: number }
}

export interface StartDaemonOptions {
  /** Temp folder for the config, data and logs. */
  dir: string
  jobs: DaemonJob[]
  /** false: no `server.auth` section at all. @default true */
  auth?: boolean
  permissions?: { allowManualRun?: boolean; allowBackupDownload?: boolean; showConfig?: boolean }
  logLimits?: { jobLogs?: number; systemLogs?: number }
  logs?: { system?: boolean; perJob?: boolean }
}

export interface RunningDaemon {
  url: string
  process: ChildProcess
  /** Log folder (`<dir>/data/logs`), e.g. to prefill a job log before start. */
  logsDir: string
  /** Everything the daemon printed so far (for failure messages). */
  output(): string
  stop(): Promise<void>
}

/** Writes the config for `options` and returns its path (the log folder is `<dir>/data/logs`). */
export async function writeDaemonConfig(options: StartDaemonOptions): Promise<string> {
  const { dir, jobs, auth = true, permissions = {}, logLimits = {}, logs = {} } = options
  mkdirSync(dir, { recursive: true })
  const config = {
    dataDir: join(dir, 'data'),
    server: {
      address: '127.0.0.1:0',
      secret: 'ui-test-secret-0123456789abcdef0123456789',
      ...(auth ? { auth: { enabled: true, username: uiUser, password: await hashPassword(uiPassword), tokenExpiration: 30 } } : {}),
      permissions: { allowManualRun: true, allowBackupDownload: true, showConfig: true, ...permissions },
      ui: { enabled: true },
    },
    logs: { system: true, perJob: true, ...logs, directory: join(dir, 'data', 'logs') },
    logLimits: { jobLogs: 1000, systemLogs: 1000, ...logLimits },
    jobs,
  }
  const file = join(dir, 'backup-daemon.yaml')
  writeFileSync(file, stringify(config))
  return file
}

export async function startDaemon(options: StartDaemonOptions, configFile?: string): Promise<RunningDaemon> {
  const file = configFile ?? (await writeDaemonConfig(options))
  const child = spawn(process.execPath, [bin, 'serve', '--config', file], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '' } })
  let output = ''
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`daemon did not start in 60 s:\n${output}`)), 60_000)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = /listening on (http:\/\/\S+)/.exec(output)
      if (match) {
        clearTimeout(timer)
        resolve(match[1]!)
      }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      output += `\n[daemon exited: code ${code}, signal ${signal}]\n`
      reject(new Error(`daemon exited with ${code}:\n${output}`))
    })
  })
  // Keep draining output so the child never blocks on a full pipe.
  child.stdout!.resume()
  child.stderr!.resume()
  return {
    url,
    process: child,
    logsDir: join(options.dir, 'data', 'logs'),
    output: () => output,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve()
        const kill = setTimeout(() => child.kill('SIGKILL'), 10_000)
        child.once('exit', () => {
          clearTimeout(kill)
          resolve()
        })
        child.kill('SIGTERM')
      }),
  }
}

/** Runs one job to the end with `backup-daemon run JOB --config FILE`; resolves with the exit code. */
export function runOnce(configFile: string, job: string): Promise<number | null> {
  const child = spawn(process.execPath, [bin, 'run', job, '--config', configFile], { stdio: 'ignore' })
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code) => resolve(code))
  })
}

/** The daemon of the restore tests: restores allowed, the UI on, one job whose first snapshot is already made. */
export interface RestoringDaemonOptions {
  secret: string
  /** The config's `restore` section (roots, databases). */
  restore: Record<string, unknown>
  /** The job, minus `compression` (tar.gz) and `storages` (one local `disk` under `dir`). */
  job: { name: string; sources: unknown[] }
}

/** Writes that config into `dir`, runs the job once with the CLI (it must succeed), then serves the daemon. */
export async function startRestoringDaemon(dir: string, { secret, restore, job }: RestoringDaemonOptions): Promise<RunningDaemon> {
  const config = {
    dataDir: join(dir, 'data'),
    server: { address: '127.0.0.1:0', secret, permissions: { allowRestore: true }, ui: { enabled: true } },
    logs: { directory: join(dir, 'data', 'logs') },
    restore,
    jobs: [{ name: job.name, compression: 'tar.gz', sources: job.sources, storages: [{ type: 'local', name: 'disk', path: join(dir, 'storage') }] }],
  }
  const file = join(dir, 'backup-daemon.yaml')
  writeFileSync(file, JSON.stringify(config, null, 2))
  const exitCode = await runOnce(file, job.name)
  if (exitCode !== 0) throw new Error(`backup-daemon run ${job.name} exited with ${exitCode}`)
  return startDaemon({ dir, jobs: [] }, file)
}

/**
 * The daemon of the UI restore tests: job `web` saves the folder `<dir>/site` (its files written by
 * `writeSite`), its first snapshot is made, and restores are allowed into `<dir>/restores` (`root`).
 */
export async function startWebRestoringDaemon(
  dir: string,
  secret: string,
  writeSite: (site: string) => void,
): Promise<{ daemon: RunningDaemon; root: string }> {
  const site = join(dir, 'site')
  mkdirSync(site, { recursive: true })
  writeSite(site)
  const root = join(dir, 'restores')
  mkdirSync(root)
  const daemon = await startRestoringDaemon(dir, {
    secret,
    restore: { roots: [root] },
    job: { name: 'web', sources: [{ type: 'local', name: 'site', path: site }] },
  })
  return { daemon, root }
}

/**
 * A daemon in a fresh temp folder `<prefix>XXXXXX` with one job `j` (local folder `src` holding `a.txt`,
 * saved to the local storage `d` in `store`). Its `stop()` also removes the folder.
 */
export async function startOneFileDaemon(prefix: string): Promise<RunningDaemon> {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const remove = () => rmSync(dir, { recursive: true, force: true })
  try {
    mkdirSync(join(dir, 'src'))
    writeFileSync(join(dir, 'src', 'a.txt'), 'a')
    const job: DaemonJob = {
      name: 'j',
      sources: [{ type: 'local', name: 'f', path: join(dir, 'src') }],
      storages: [{ type: 'local', name: 'd', path: join(dir, 'store') }],
    }
    const daemon = await startDaemon({ dir, jobs: [job] })
    return { ...daemon, stop: () => daemon.stop().finally(remove) }
  } catch (error) {
    remove()
    throw error
  }
}

/** Logs in as the test operator (it must answer 200) and returns the session cookie (`name=value`). */
export async function loginCookie(daemonUrl: string): Promise<string> {
  const res = await fetch(`${daemonUrl}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: uiUser, password: uiPassword }),
  })
  if (res.status !== 200) throw new Error(`login answered ${res.status}: ${await res.text()}`)
  return res.headers.get('set-cookie')!.split(';')[0]!
}
