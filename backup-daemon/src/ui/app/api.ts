/**
 * @module ui/app/api
 * The UI's only way to the daemon: same-origin `fetch` on `/api/v1` with the session cookie.
 * Error bodies are Problem JSON; they become `ApiError`. A 401 on anything but the login call means
 * the session is missing or expired: `onUnauthorized` (set by the app) sends the user to the login page.
 */
import type { RunRecord } from '../../runs/history.js'
import type { JobView, RunInfo, SnapshotView } from '../../engine/types.js'
import type { RestoreOptions } from '../../tasks/restoreOptions.js'
import type { RestoreTarget, TaskView } from '../../tasks/TaskView.js'

export type { JobView, RunInfo, RestoreOptions, RestoreTarget, TaskView }

export const API_BASE = '/api/v1'

export interface Settings {
  logLimits: { jobLogs: number; systemLogs: number }
  logs: { perJob: boolean; system: boolean }
  permissions: { allowBackupDownload: boolean; allowManualRun: boolean; showConfig: boolean; allowRestore?: boolean }
  /** The language a UI starts in; this UI has only English. */
  defaultLanguage?: string
}

/**
 * One listed snapshot: the spec's fields plus what the daemon adds (read defensively: a daemon
 * without them lists neither badge).
 */
export type Snapshot = SnapshotView & {
  checksummed?: boolean
  damaged?: boolean
  damageReason?: string
  storage?: string
  storages?: string[]
}

/** A storage of the job that did not answer its listing: why, and since when (RFC 3339). */
export interface StorageDown {
  storage: string
  error: string
  since: string
}

/** `GET /status`: public fields, and with a session the daemon's own details. */
export interface SystemStatus {
  status: string
  /** Public, as the original's login page reads it. */
  version?: string
  uptime?: number
  environment?: string
  jobsCount?: number
  startedAt?: string
  jobs?: { total: number; active: number; idle: number; running: number; cancelling: number }
}

/** `GET /jobs/{name}/config`: `{job, config}` with the secret-free view (only name and schedule when `showConfig` is off). */
export type JobConfigResponse = { job: string; config: Record<string, unknown> } | { name: string; schedule: string }

export interface AuthCheck {
  authenticated: boolean
  authEnabled: boolean
}

export interface Problem {
  type?: string
  title?: string
  status?: number
  detail?: string
  /** Same as `detail` (kept for clients of the original service). */
  error?: string
  errors?: { location: string; message: string; value?: unknown }[]
}

/** A non-2xx answer, with the Problem body when there was one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem,
  ) {
    super(problem.detail || problem.error || problem.title || `HTTP ${status}`)
    this.name = 'ApiError'
  }
}

let unauthorizedHandler: () => void = () => {}

/** Registers what to do when the session is gone (the app navigates to the login page). */
export function onUnauthorized(handler: () => void): void {
  unauthorizedHandler = handler
}

/** Tells the app the session is gone (also used by the log stream, which cannot see statuses). */
export function reportUnauthorized(): void {
  unauthorizedHandler()
}

async function request<T>(method: string, path: string, body?: unknown, { handle401 = true } = {}): Promise<T> {
  let response: Response
  try {
    response = await fetch(API_BASE + path, {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? { Accept: 'application/json' } : { Accept: 'application/json', 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  } catch {
    throw new ApiError(0, { title: 'The daemon cannot be reached', detail: 'The daemon cannot be reached. Is it running?' })
  }
  if (response.ok) {
    const text = await response.text()
    return (text ? JSON.parse(text) : {}) as T
  }
  let problem: Problem = { status: response.status, title: response.statusText }
  try {
    problem = { ...problem, ...((await response.json()) as Problem) }
  } catch {}
  if (response.status === 401 && handle401) unauthorizedHandler()
  throw new ApiError(response.status, problem)
}

const job = (name: string) => `/jobs/${encodeURIComponent(name)}`

export const api = {
  settings: () => request<Settings>('GET', '/settings'),
  authCheck: () => request<AuthCheck>('GET', '/auth/check'),
  login: (username: string, password: string) => request<{ success: boolean }>('POST', '/auth/login', { username, password }, { handle401: false }),
  logout: () => request<unknown>('POST', '/auth/logout', undefined, { handle401: false }),
  jobs: () => request<{ jobs: JobView[] }>('GET', '/jobs'),
  jobStatus: (name: string) => request<Omit<JobView, 'schedule' | 'sourcesCount' | 'storagesCount'>>('GET', `${job(name)}/status`),
  jobConfig: (name: string) => request<JobConfigResponse>('GET', `${job(name)}/config`),
  status: () => request<SystemStatus>('GET', '/status'),
  jobRunInfo: (name: string) => request<RunInfo & { job: string; logs: string[] }>('GET', `${job(name)}/logs?tail=0`),
  run: (name: string) => request<{ job: string; startedAt: string }>('POST', `${job(name)}/run`),
  cancel: (name: string) => request<{ job: string; cancelledAt: string }>('POST', `${job(name)}/cancel`),
  /** The newest `tail` lines of a log; `path` is a `LogSource.tail`. */
  logTail: (path: string, tail: number) => request<{ logs: string[] }>('GET', `${path}?tail=${tail}`),
  /** What the storages that answered hold; `storagesDown` names the others (left out when every one answered). */
  backups: (name: string) => request<{ backups: Snapshot[]; job: string; storagesDown?: StorageDown[] }>('GET', `${job(name)}/backups`),
  history: (name: string) => request<{ job: string; runs: RunRecord[] }>('GET', `${job(name)}/history`),
  verify: (name: string, filename: string) => request<{ task: TaskView }>('POST', `${job(name)}/backups/${encodeURIComponent(filename)}/verify`),
  restore: (name: string, filename: string, target: RestoreTarget) =>
    request<{ task: TaskView }>('POST', `${job(name)}/backups/${encodeURIComponent(filename)}/restore`, { target }),
  /** What a restore of the job may target (403 while restores are off). */
  restoreOptions: (name: string) => request<RestoreOptions>('GET', `${job(name)}/restore-options`),
  /** A restore drill of the job's newest snapshot on every storage (a task of kind `drill`). */
  drill: (name: string) => request<{ task: TaskView }>('POST', `${job(name)}/drill`),
  /** The job's running or newest task; `{}` (204) before the first. */
  currentTask: (name: string) => request<{ task?: TaskView }>('GET', `${job(name)}/tasks/current`),
  cancelTask: (name: string) => request<{ task: TaskView }>('POST', `${job(name)}/tasks/current/cancel`),
}

/**
 * URL of a download (a plain link: the cookie goes along, redirects are followed): `filename` is a
 * snapshot's `id`, a split set's `id` (the whole set) or a part name from `partName`.
 */
export function downloadUrl(jobName: string, filename: string): string {
  return `${API_BASE}${job(jobName)}/backups/${encodeURIComponent(filename)}/download`
}

/** The `{filename}` of part `index` (0-based) of split set `id`: `<id>.part-aaa`, `.part-aab`, ... */
export function partName(id: string, index: number): string {
  const letters = [676, 26, 1].map((unit) => String.fromCharCode(97 + (Math.floor(index / unit) % 26))).join('')
  return `${id}.part-${letters}`
}

/** A log's two endpoints: the JSON tail (path under `/api/v1`) and the SSE stream (URL). */
export interface LogSource {
  tail: string
  stream: string
}

export function jobLogSource(name: string): LogSource {
  return { tail: `${job(name)}/logs`, stream: `${API_BASE}${job(name)}/logs/stream` }
}

export const SYSTEM_LOG_SOURCE: LogSource = { tail: '/logs/system', stream: `${API_BASE}/logs/system/stream` }
