/**
 * @module runs/RunWatchers
 * Who follows a job's runs live (the progress stream): per job a set of listeners, told every progress
 * snapshot and the record of each run as it ends. A failing listener never disturbs the run.
 */
import type { RunRecord } from './history.js'
import type { RunProgress } from './progress.js'

export interface RunListener {
  progress(progress: RunProgress): void
  end(record: RunRecord): void
}

export class RunWatchers {
  private readonly byJob = new Map<string, Set<RunListener>>()

  watch(job: string, listener: RunListener): () => void {
    let set = this.byJob.get(job)
    if (!set) this.byJob.set(job, (set = new Set()))
    set.add(listener)
    return () => {
      set.delete(listener)
      if (set.size === 0 && this.byJob.get(job) === set) this.byJob.delete(job)
    }
  }

  progress(job: string, progress: RunProgress): void {
    for (const listener of this.byJob.get(job) ?? []) {
      try {
        listener.progress(progress)
      } catch {}
    }
  }

  end(job: string, record: RunRecord): void {
    for (const listener of this.byJob.get(job) ?? []) {
      try {
        listener.end(record)
      } catch {}
    }
  }
}
