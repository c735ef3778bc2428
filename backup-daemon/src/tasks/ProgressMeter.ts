/**
 * @module tasks/ProgressMeter
 * Counts what a task reads (bytes from the storage, archive entries) and turns the counters into a
 * `RunProgress` on a timer (at most 4 a second): the rate is smoothed over the ticks, the ETA and
 * percent are given only when the total is known. Counting is cheap (additions); the snapshot object
 * is built only on ticks, so a fast stream costs nothing extra per chunk.
 */
import type { RunPhase, RunProgress } from '../engine/progress/types.js'

export interface ProgressMeterOptions {
  kind: 'restore' | 'verify'
  startedAt: Date
  totalBytes?: number
  /** Called with each new snapshot (every tick while running, and once at `stop`). */
  onProgress?: (progress: RunProgress) => void
  /** @default 250 */
  intervalMs?: number
}

export class ProgressMeter {
  phase: RunPhase = 'preparing'
  currentFile?: string
  currentSource?: string
  bytesRead = 0
  filesRead = 0
  private rate = 0
  private lastBytes = 0
  private lastTick: number
  private latest: RunProgress
  private readonly timer: NodeJS.Timeout

  constructor(private readonly options: ProgressMeterOptions) {
    this.lastTick = options.startedAt.getTime()
    this.latest = this.snapshot()
    this.timer = setInterval(() => this.tick(), options.intervalMs ?? 250)
    this.timer.unref()
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

  /** Stops the timer and takes a final snapshot. */
  stop(): RunProgress {
    clearInterval(this.timer)
    this.tick()
    return this.latest
  }

  private tick(): void {
    const now = Date.now()
    const seconds = (now - this.lastTick) / 1000
    if (seconds > 0) {
      const instant = (this.bytesRead - this.lastBytes) / seconds
      // Exponential smoothing: one slow tick does not make the ETA jump.
      this.rate = this.rate === 0 ? instant : this.rate * 0.7 + instant * 0.3
    }
    this.lastTick = now
    this.lastBytes = this.bytesRead
    this.latest = this.snapshot()
    this.options.onProgress?.(this.latest)
  }

  private snapshot(): RunProgress {
    const { totalBytes } = this.options
    const progress: RunProgress = {
      kind: this.options.kind,
      phase: this.phase,
      startedAt: this.options.startedAt.toISOString(),
      ...(this.currentSource !== undefined && { currentSource: this.currentSource }),
      ...(this.currentFile !== undefined && { currentFile: this.currentFile }),
      filesRead: this.filesRead,
      bytesRead: this.bytesRead,
      storages: [],
      bytesPerSecond: Math.round(this.rate),
    }
    if (totalBytes !== undefined && totalBytes > 0) {
      progress.totalBytes = totalBytes
      progress.percent = Math.min(100, Math.round((this.bytesRead / totalBytes) * 1000) / 10)
      if (this.rate > 0) progress.etaSeconds = Math.max(0, Math.round((totalBytes - this.bytesRead) / this.rate))
    }
    return progress
  }
}
