/**
 * @module tasks/ProgressMeter
 * Counts what a task reads (bytes from the storage, archive entries) and turns the counters into a
 * `RunProgress` on a timer. Throttle, rate, percent and ETA are the backup's (`ProgressGauge`): the same
 * cap (99% until the task succeeded) and rounding. Counting is cheap (additions); the snapshot object
 * is built only on ticks, so a fast stream costs nothing extra per chunk.
 */
import { ProgressGauge } from '../runs/ProgressGauge.js'
import type { RunPhase, RunProgress } from '../runs/progress.js'

export interface ProgressMeterOptions {
  kind: 'restore' | 'verify' | 'drill'
  startedAt: Date
  totalBytes?: number
  /**
   * The files the task will count (`file()`), where known (a restore or drill: the files the backup read):
   * its percent and ETA then weigh each file too (`ProgressGauge`), which on small files is most of the work.
   */
  totalFiles?: number
  /** Called with each new snapshot (every tick while running, and once at `stop`). */
  onProgress?: (progress: RunProgress) => void
  /** @default progressIntervalMs (250) */
  intervalMs?: number
}

export class ProgressMeter {
  phase: RunPhase = 'preparing'
  currentFile?: string
  currentSource?: string
  bytesRead = 0
  filesRead = 0
  /** The files expected (`ProgressMeterOptions.totalFiles`); the task may learn it later, or drop it (a restore restic does itself counts none). */
  totalFiles: number | undefined
  /** Set by `stop(true)`: the task read everything it meant to (100%). */
  private complete = false
  private running = true
  private latest: RunProgress
  private readonly gauge: ProgressGauge

  constructor(private readonly options: ProgressMeterOptions) {
    const { startedAt, intervalMs } = options
    this.totalFiles = options.totalFiles
    this.gauge = new ProgressGauge({
      startedAt,
      intervalMs,
      bytesRead: () => this.bytesRead,
      filesRead: () => this.filesRead,
      onSample: () => this.publish(),
    })
    this.latest = this.snapshot()
    this.gauge.start()
  }

  /** The newest snapshot taken (at most one tick old). */
  get progress(): RunProgress {
    return this.latest
  }

  addBytes(n: number): void {
    this.bytesRead += n
  }

  file(name: string): void {
    this.filesRead++
    this.currentFile = name
  }

  /** Stops the timer and takes a final snapshot: 100% when `succeeded`, else the share read and no ETA. */
  stop(succeeded = false): RunProgress {
    this.gauge.stop()
    this.gauge.sample()
    this.complete = succeeded
    this.running = false
    this.publish()
    return this.latest
  }

  private publish(): void {
    this.latest = this.snapshot()
    this.options.onProgress?.(this.latest)
  }

  private snapshot(): RunProgress {
    const progress: RunProgress = {
      kind: this.options.kind,
      phase: this.phase,
      startedAt: this.options.startedAt.toISOString(),
      ...(this.currentSource !== undefined && { currentSource: this.currentSource }),
      ...(this.currentFile !== undefined && { currentFile: this.currentFile }),
      filesRead: this.filesRead,
      bytesRead: this.bytesRead,
      storages: [],
      bytesPerSecond: this.gauge.bytesPerSecond,
    }
    const { totalFiles } = this
    const files = totalFiles ? { read: Math.min(this.filesRead, totalFiles), total: totalFiles } : undefined
    const estimate = this.gauge.estimate(this.bytesRead, this.options.totalBytes, !this.complete, files)
    // A failed or cancelled task keeps the share it read, with no time left to wait for.
    if (!this.running) delete estimate.etaSeconds
    return Object.assign(progress, estimate)
  }
}
