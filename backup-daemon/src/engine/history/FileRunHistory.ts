/**
 * @module engine/history/FileRunHistory
 * The run history on disk: `<dataDir>/history/<job>.json` per job, the newest `limit` runs, written
 * atomically (temporary file + rename, mode 0600). Each append re-reads the file, so runs recorded by
 * a `backup-daemon run` beside the daemon are kept; reads re-read it when its mtime changed. A file that
 * cannot be parsed is moved aside (`.corrupt`), a warning logged, and the history starts empty.
 */
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { RunHistory, RunRecord } from '../../runs/history.js'

export interface FileRunHistoryOptions {
  dataDir: string
  /** Runs kept per job. @default 100 */
  limit?: number
  /** Where a corrupt file is reported (the system log). */
  warn?(message: string): void
}

interface HistoryFile {
  version: 1
  /** Oldest first. */
  runs: RunRecord[]
}

export const defaultHistoryLimit = 100

export class FileRunHistory implements RunHistory {
  readonly limit: number
  private readonly dir: string
  private readonly cache = new Map<string, { mtime: number; runs: RunRecord[] }>()

  constructor(private readonly options: FileRunHistoryOptions) {
    this.limit = options.limit ?? defaultHistoryLimit
    this.dir = join(options.dataDir, 'history')
  }

  /** Job names come from the config, but are still kept from forming a path. */
  private fileOf(job: string): string {
    return join(this.dir, `${encodeURIComponent(job).replace(/^\./, '%2E')}.json`)
  }

  private mtime(path: string): number {
    try {
      return statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? -1
    } catch {
      return -1
    }
  }

  private load(job: string): RunRecord[] {
    const path = this.fileOf(job)
    const mtime = this.mtime(path)
    const cached = this.cache.get(job)
    if (cached && cached.mtime === mtime) return cached.runs
    let runs: RunRecord[] = []
    if (mtime !== -1) {
      try {
        const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<HistoryFile>
        if (!Array.isArray(parsed.runs)) throw new Error('no "runs" list')
        runs = parsed.runs.filter((run) => run && typeof run === 'object' && typeof run.id === 'string' && typeof run.startedAt === 'string')
      } catch (err) {
        const aside = `${path}.corrupt`
        try {
          renameSync(path, aside)
        } catch {}
        this.options.warn?.(`run history of job "${job}" could not be read (${(err as Error).message}); starting empty, the old file is ${aside}`)
      }
    }
    this.cache.set(job, { mtime: this.mtime(path), runs })
    return runs
  }

  append(record: RunRecord): Promise<void> {
    const runs = [...this.load(record.job), record].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).slice(-this.limit)
    const path = this.fileOf(record.job)
    // Owner only, like state.json: errors and sizes are nobody else's business.
    mkdirSync(this.dir, { recursive: true, mode: 0o700 })
    const temp = `${path}.${process.pid}.tmp`
    const file: HistoryFile = { version: 1, runs }
    writeFileSync(temp, JSON.stringify(file) + '\n', { mode: 0o600 })
    renameSync(temp, path)
    this.cache.set(record.job, { mtime: this.mtime(path), runs })
    return Promise.resolve()
  }

  list(job: string, limit?: number): RunRecord[] {
    const runs = this.load(job)
    const count = Math.min(limit ?? runs.length, runs.length)
    const newest: RunRecord[] = []
    for (let i = runs.length - 1; i >= runs.length - count; i--) newest.push(runs[i]!)
    return newest
  }
}
