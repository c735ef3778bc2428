/**
 * @module engine/StateStore
 * `<dataDir>/state.json`: per job the last result, last run time and the newest run's metadata, so
 * they survive a restart. Written atomically (temporary file + rename). Each update re-reads the file
 * and changes only its job's entry, so a `backup-daemon run` beside the daemon does not undo the
 * daemon's entries (or the other way round).
 */
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { LastResult, RunInfo } from './types.js'

export interface JobState {
  lastResult: LastResult
  /** RFC 3339 start time of the newest run, "" before the first. */
  lastRun: string
  run: RunInfo
}

interface StateFile {
  version: 1
  jobs: Record<string, JobState>
}

export const emptyJobState = (): JobState => ({
  lastResult: { success: false, duration: '', error: '' },
  lastRun: '',
  run: { startTime: '', endTime: '', duration: '', error: '', status: 'idle' },
})

export class StateStore {
  private jobs: Record<string, JobState>
  private readonly path: string
  /** mtime of the file when last read, to notice writes by another process. */
  private seen = -1

  constructor(dataDir: string) {
    // Owner only: run history and errors are nobody else's business (folders 0700, files 0600).
    mkdirSync(dataDir, { recursive: true, mode: 0o700 })
    this.path = join(dataDir, 'state.json')
    this.jobs = this.read().jobs
  }

  private mtime(): number {
    try {
      return statSync(this.path, { throwIfNoEntry: false })?.mtimeMs ?? -1
    } catch {
      return -1
    }
  }

  private read(): StateFile {
    this.seen = this.mtime()
    try {
      const parsed = JSON.parse(readFileSync(this.path, 'utf8')) as StateFile
      return { version: 1, jobs: parsed.jobs ?? {} }
    } catch {
      // Missing or unreadable (a crash can no longer truncate it, but an operator can): start empty.
      return { version: 1, jobs: {} }
    }
  }

  /** The job's entry; re-read when another process (`backup-daemon run`) changed the file. */
  get(job: string): JobState {
    this.refresh(0)
    return this.cached(job)
  }

  /** When the file was last stat-ed for `refresh` (ms since the epoch). */
  private checkedAt = 0

  /**
   * Re-reads the file when another process changed it. The `stat` costs ~20 µs of CPU here (more than
   * the rest of `GET /jobs`), so it runs at most once per `recheckMs`: another process's write (a
   * `backup-daemon run` beside the daemon) shows up within that time; this process's own writes at once.
   */
  refresh(recheckMs = 500): void {
    const now = Date.now()
    if (now - this.checkedAt < recheckMs) return
    this.checkedAt = now
    if (this.mtime() !== this.seen) this.jobs = this.read().jobs
  }

  /** The job's entry as last read, without looking at the file (call `refresh()` first). */
  cached(job: string): JobState {
    return this.jobs[job] ?? emptyJobState()
  }

  /** Merges `patch` into the job's entry and writes the file. */
  update(job: string, patch: { lastResult?: LastResult; lastRun?: string; run?: Partial<RunInfo> }): JobState {
    const onDisk = this.read()
    const current = onDisk.jobs[job] ?? this.jobs[job] ?? emptyJobState()
    const next: JobState = {
      lastResult: patch.lastResult ?? current.lastResult,
      lastRun: patch.lastRun ?? current.lastRun,
      run: { ...current.run, ...patch.run },
    }
    onDisk.jobs[job] = next
    const temp = `${this.path}.${process.pid}.tmp`
    writeFileSync(temp, JSON.stringify(onDisk, null, 2) + '\n', { mode: 0o600 })
    renameSync(temp, this.path)
    this.seen = this.mtime()
    this.jobs = onDisk.jobs
    return next
  }
}
