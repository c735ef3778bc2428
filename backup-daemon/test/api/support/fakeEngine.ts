/**
 * @module test/api/support/fakeEngine
 * A TEST DOUBLE of the `Engine` interface: jobs in memory, runs that only flip a status, snapshots as
 * in-memory byte buffers, and an in-memory `LogHub` with subscribers. The API tests run on the real engine
 * (`realEngine.ts`); this double serves only the states the real engine cannot reach on demand, each use
 * saying why (a run held in "cancelling", snapshot names and storages the engine does not write itself).
 */
import { Readable } from 'node:stream'
import { FullDownloadUnsupportedError, JobBusyError, JobNotFoundError, NoRunInFlightError, SnapshotNotFoundError } from '../../../src/runs/errors.js'
import type { JobConfig } from '../../../src/config/types.js'
import { redactJob } from '../../../src/engine/redactJob.js'
import type { Engine, JobView, LogHub, LogScope, RunInfo, SnapshotDownload, SnapshotView } from '../../../src/engine/types.js'

/** The encryption password of every fake job's config: it must never appear in an answer. */
export const fakeEncryptionPassword = 'fake-encryption-password-0123'

/** What a listing item carries besides the spec's fields (CONTRACT.md: filled by the engine's snapshot catalog). */
export interface SnapshotExtras {
  checksummed: boolean
  damaged: boolean
  damageReason?: string
  storage: string
  storages: string[]
}

export interface FakeSnapshot {
  view: SnapshotView & SnapshotExtras
  bytes?: Buffer
  /** Bytes of each part of a split set, in order: `<id>.part-aaa`, `.part-aab`, ... are downloadable. */
  parts?: Buffer[]
  redirect?: string
  fullDownloadUnsupported?: boolean
}

/** `aaa`, `aab`, ... for part index 0, 1, ... (the original service's part suffixes). */
export const partSuffix = (index: number): string => [676, 26, 1].map((unit) => String.fromCharCode(97 + (Math.floor(index / unit) % 26))).join('')

const scopeKey = (scope: LogScope) => (scope.kind === 'system' ? 'system' : `job:${scope.job}`)

export class FakeLogHub implements LogHub {
  readonly lines = new Map<string, string[]>()
  readonly listeners = new Map<string, Set<(line: string) => void>>()
  system = true
  perJob = true

  enabled(scope: LogScope): boolean {
    return scope.kind === 'system' ? this.system : this.perJob
  }
  tail(scope: LogScope, count: number): string[] {
    const all = this.lines.get(scopeKey(scope)) ?? []
    return count <= 0 ? [] : all.slice(-count)
  }
  subscribe(scope: LogScope, listener: (line: string) => void): () => void {
    const key = scopeKey(scope)
    const set = this.listeners.get(key) ?? new Set()
    this.listeners.set(key, set)
    set.add(listener)
    return () => set.delete(listener)
  }
  append(scope: LogScope, line: string): void {
    const key = scopeKey(scope)
    const all = this.lines.get(key) ?? []
    all.push(line)
    this.lines.set(key, all)
    for (const listener of this.listeners.get(key) ?? []) listener(line)
  }
  subscribers(scope: LogScope): number {
    return this.listeners.get(scopeKey(scope))?.size ?? 0
  }
}

export function fakeJob(name: string, overrides: Partial<JobView> = {}): JobView {
  return {
    name,
    active: true,
    schedule: '0 3 * * *',
    sourcesCount: 1,
    storagesCount: 1,
    status: 'idle',
    lastResult: { success: true, duration: '1.2s', error: '' },
    lastRun: '2026-11-20T03:00:00.000Z',
    nextRun: '2026-11-22T03:00:00.000Z',
    ...overrides,
  }
}

/** A listed snapshot of job `nightly` on the local storage `disk`: one whole part with a manifest. */
export function fakeSnapshotView(name: string, overrides: Partial<FakeSnapshot['view']> = {}): FakeSnapshot['view'] {
  return {
    id: name,
    name,
    jobName: 'nightly',
    path: `/b/${name}`,
    size: 6,
    createdAt: '2026-11-21T03:00:00.000Z',
    storageType: 'local',
    isSplit: false,
    fullDownloadSupported: true,
    partsCount: 1,
    checksummed: true,
    damaged: false,
    storage: 'disk',
    storages: ['disk'],
    ...overrides,
  }
}

export class FakeEngine implements Engine {
  readonly logs = new FakeLogHub()
  readonly jobs = new Map<string, JobView>()
  readonly snapshots = new Map<string, FakeSnapshot[]>()
  readonly runs: { job: string; trigger: string }[] = []
  /** Make any method throw this, to test the 500 path. */
  explode?: Error
  stopped = false

  constructor(jobs: JobView[] = [fakeJob('nightly'), fakeJob('weekly', { active: false })]) {
    for (const job of jobs) this.jobs.set(job.name, job)
  }

  private job(name: string): JobView {
    if (this.explode) throw this.explode
    const job = this.jobs.get(name)
    if (!job) throw new JobNotFoundError(name)
    return job
  }
  listJobs(): JobView[] {
    if (this.explode) throw this.explode
    return [...this.jobs.values()]
  }
  getJob(name: string): JobView {
    return this.job(name)
  }
  jobConfig(name: string): Record<string, unknown> {
    const job = this.job(name)
    // The real JobDetail builder over a small job with a secret in it (the API tests check the secret never shows).
    return redactJob({
      name: job.name,
      schedule: job.schedule,
      active: job.active,
      compression: 'tar.gz',
      sources: [{ type: 'local', name: 'files', path: '/srv/files' }],
      storages: [{ type: 'local', name: 'disk', path: '/srv/backups', includeJobName: true }],
      encryption: { type: 'openssl', cipher: 'aes-256-cbc', password: fakeEncryptionPassword },
      notify: [],
    } as JobConfig) as unknown as Record<string, unknown>
  }
  runInfo(name: string): RunInfo {
    const job = this.job(name)
    const status = job.cancelling
      ? 'cancelling'
      : job.status === 'idle'
        ? job.lastResult
          ? job.lastResult.success
            ? 'success'
            : 'failed'
          : 'idle'
        : job.status
    return { startTime: job.lastRun ?? '', endTime: job.lastRun ?? '', duration: job.lastResult?.duration ?? '', error: job.lastResult?.error ?? '', status }
  }
  run(name: string, trigger: 'manual' | 'schedule'): { startedAt: string } {
    const job = this.job(name)
    if (job.status !== 'idle') throw new JobBusyError(name)
    job.status = 'running'
    this.runs.push({ job: name, trigger })
    return { startedAt: new Date().toISOString() }
  }
  cancel(name: string): { cancelledAt: string } {
    const job = this.job(name)
    if (job.status !== 'running') throw new NoRunInFlightError(name)
    job.cancelling = true
    return { cancelledAt: new Date().toISOString() }
  }
  async listSnapshots(name: string): Promise<(SnapshotView & SnapshotExtras)[]> {
    this.job(name)
    return (this.snapshots.get(name) ?? []).map((s) => s.view)
  }
  async openSnapshot(name: string, filename: string): Promise<SnapshotDownload> {
    this.job(name)
    const all = this.snapshots.get(name) ?? []
    const part = /^(.+)\.part-([a-z]{3})$/.exec(filename)
    const set = part && all.find((s) => s.view.id === part[1] && s.parts)
    if (set) {
      const index = set.parts!.findIndex((_, i) => partSuffix(i) === part![2])
      if (index < 0) throw new SnapshotNotFoundError(name, filename)
      const bytes = set.parts![index]!
      return { kind: 'stream', filename, size: bytes.length, contentType: 'application/octet-stream', open: async () => Readable.from([bytes]) }
    }
    const snap = all.find((s) => s.view.id === filename)
    if (!snap) throw new SnapshotNotFoundError(name, filename)
    if (snap.parts && !snap.fullDownloadUnsupported) {
      const bytes = Buffer.concat(snap.parts)
      return { kind: 'stream', filename, size: bytes.length, contentType: 'application/gzip', open: async () => Readable.from([bytes]) }
    }
    if (snap.fullDownloadUnsupported) throw new FullDownloadUnsupportedError(filename)
    if (snap.redirect) return { kind: 'redirect', url: snap.redirect }
    const bytes = snap.bytes ?? Buffer.alloc(0)
    return { kind: 'stream', filename, size: bytes.length, contentType: 'application/gzip', open: async () => Readable.from([bytes]) }
  }
  async stop(): Promise<void> {
    this.stopped = true
  }
}
