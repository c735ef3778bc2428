/**
 * @module test/tasks/support
 * A real daemon with restore switched on for the task tests: a logged-in `fetch`, a run that waits
 * for the job to be idle again, and a wait for a task to reach a state (polling the API, no timing).
 */
import { randomBytes } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { hashPassword } from '../../src/auth/password.js'
import { spawnDaemon, type DaemonProcess } from '../api/support/daemonProcess.js'

export interface TaskClient {
  get(path: string): Promise<Response>
  post(path: string, body?: unknown): Promise<Response>
  /** The session cookie (`name=value`) for clients of its own, e.g. an event stream. */
  cookie(): Promise<string>
  /** Runs the job's backup and returns the newest snapshot's name once the job is idle. */
  backup(job: string): Promise<string>
  /** Polls `tasks/current` until `done` says so; returns that task. */
  waitTask(job: string, done: (task: TaskBody) => boolean): Promise<TaskBody>
}

export interface TaskBody {
  id: string
  kind: string
  status: string
  snapshot: string
  target?: string
  error?: string
  summary?: string
  progress?: { phase: string; bytesRead: number; filesRead: number; totalBytes?: number; percent?: number; kind: string }
}

export const ended = (task: TaskBody) => !['running', 'cancelling'].includes(task.status)

export interface TaskClientOptions {
  /**
   * The longest pause between two polls: they start 20 ms apart and, with a larger value, slow down to it
   * (a test with dozens of long tasks at once, as the restore matrix, polls the daemon less). @default 20
   */
  maxPollMs?: number
}

export async function taskClient(daemon: DaemonProcess, username: string, password: string, options: TaskClientOptions = {}): Promise<TaskClient> {
  const base = `${daemon.url}/api/v1`
  const credentials = JSON.stringify({ username, password })
  const login = await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: credentials })
  if (login.status !== 200) throw new Error(`login failed: ${login.status}`)
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!
  // A keep-alive connection the server closed as idle while this (busy) process did not read its end fails
  // the next request on it (ECONNRESET, "other side closed"): a GET is idempotent, so it is sent once more.
  const get = (path: string) =>
    fetch(base + path, { headers: { cookie } }).catch((err: Error & { cause?: { code?: string; name?: string } }) => {
      if (err.cause?.code !== 'ECONNRESET' && err.cause?.code !== 'UND_ERR_SOCKET') throw err
      return fetch(base + path, { headers: { cookie } })
    })
  const post = (path: string, body?: unknown) =>
    fetch(base + path, {
      method: 'POST',
      headers: { cookie, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  const maxPollMs = options.maxPollMs ?? 20
  const until = async <T>(what: string, probe: () => Promise<T | undefined>): Promise<T> => {
    // Two minutes of pauses in all, however long each.
    for (let waited = 0, pause = 20; waited < 120_000; waited += pause, pause = Math.min(maxPollMs, Math.ceil(pause * 1.5))) {
      const value = await probe()
      if (value !== undefined) return value
      await new Promise((resolve) => setTimeout(resolve, pause))
    }
    throw new Error(`gave up waiting for ${what}\n${daemon.output()}`)
  }
  return {
    get,
    post,
    cookie: async () => cookie,
    async backup(job) {
      const started = await post(`/jobs/${job}/run`)
      if (started.status !== 202) throw new Error(`run of ${job}: ${started.status} ${await started.text()}`)
      await until(`the run of ${job}`, async () => {
        const status = (await (await get(`/jobs/${job}/status`)).json()) as { status: string }
        return status.status === 'idle' ? true : undefined
      })
      const info = (await (await get(`/jobs/${job}/logs?tail=0`)).json()) as { status: string; error: string }
      if (info.status !== 'success') throw new Error(`run of ${job} ended ${info.status}: ${info.error}`)
      const { backups } = (await (await get(`/jobs/${job}/backups`)).json()) as { backups: { name: string }[] }
      return backups[0]!.name
    },
    waitTask: (job, done) =>
      until(`a task of ${job}`, async () => {
        const res = await get(`/jobs/${job}/tasks/current`)
        if (res.status !== 200) return undefined
        const { task } = (await res.json()) as { task: TaskBody }
        return done(task) ? task : undefined
      }),
  }
}

/** The `server` section of the restore tests: one `operator` who logs in with `password`, restores allowed, no UI. */
export async function restoreServer(password: string) {
  return {
    address: '127.0.0.1:0',
    auth: { enabled: true, username: 'operator', password: await hashPassword(password), cookies: { secure: false, sameSite: 'Strict' } },
    permissions: { allowRestore: true },
    ui: { enabled: false },
  }
}

/** `folders` folders of `filesPerFolder` random 16 KiB files under `path`: a restore of it runs long enough to be interrupted. */
export function writeRandomTree(path: string, folders: number, filesPerFolder: number): void {
  for (let d = 0; d < folders; d++) {
    mkdirSync(join(path, `d${d}`), { recursive: true })
    for (let f = 0; f < filesPerFolder; f++) writeFileSync(join(path, `d${d}`, `f${f}.bin`), randomBytes(16 * 1024))
  }
}

/** Writes `config` to `<dir>/config.yaml`, starts the real daemon on it and logs in as `operator`. */
export async function serveConfig(dir: string, config: object, password: string): Promise<{ configFile: string; daemon: DaemonProcess; api: TaskClient }> {
  const configFile = join(dir, 'config.yaml')
  writeFileSync(configFile, JSON.stringify(config, null, 2))
  const daemon = await spawnDaemon(configFile)
  try {
    return { configFile, daemon, api: await taskClient(daemon, 'operator', password) }
  } catch (error) {
    await daemon.stop()
    throw error
  }
}
