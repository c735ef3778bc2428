/**
 * @module runs/ProgressGauge
 * The calculation every progress meter shares (a backup's `ProgressTracker`, a restore's or verify's
 * `ProgressMeter`): the throttle (one sample every `intervalMs`, 4 a second by default, on an unref'd
 * timer; nothing per chunk), the smoothed read rate, and the percent and ETA against a known total.
 * One place, so a backup and a task show the same cap and rounding:
 * - percent: floored to 0.1 and held at 99 while reading (the total may be an estimate: the previous
 *   run's size), 100 once reading is over; only when the total is known.
 * - ETA: whole seconds rounded up, only while reading with a rate above zero and a known total, and
 *   left out once the total is reached (an estimate ran out: the time left is unknown, not zero).
 */
import type { RunProgress } from './progress.js'

/** Default period of the samples: at most 4 progress snapshots a second. */
export const progressIntervalMs = 250
/** Weight of the newest sample in the smoothed rate (one slow tick does not make the ETA jump). */
const smoothing = 0.3

export interface ProgressGaugeOptions {
  startedAt: Date
  /** The bytes read so far; read once per sample, never per chunk. */
  bytesRead(): number
  /** Called after each timed sample (the caller builds and hands on its snapshot). */
  onSample?(): void
  /** @default progressIntervalMs */
  intervalMs?: number
  /** @default Date.now */
  now?(): number
}

/** What `estimate` adds to a `RunProgress`: nothing when the total is unknown. */
export type ProgressEstimate = Pick<RunProgress, 'totalBytes' | 'percent' | 'etaSeconds'>

const maxEtaSeconds = 365 * 86_400

export class ProgressGauge {
  private rate = 0
  private sampledAt: number
  private sampledBytes = 0
  private timer: NodeJS.Timeout | undefined
  private readonly now: () => number

  constructor(private readonly options: ProgressGaugeOptions) {
    this.now = options.now ?? Date.now
    this.sampledAt = options.startedAt.getTime()
  }

  /** Starts the sample timer (idempotent); `stop()` ends it. */
  start(): void {
    if (this.timer) return
    this.timer = setInterval(() => {
      this.sample()
      this.options.onSample?.()
    }, this.options.intervalMs ?? progressIntervalMs)
    this.timer.unref()
  }

  stop(): void {
    clearInterval(this.timer)
    this.timer = undefined
  }

  /** Updates the smoothed rate from the bytes read since the previous sample. */
  sample(): void {
    const now = this.now()
    const bytes = this.options.bytesRead()
    const elapsed = now - this.sampledAt
    if (elapsed <= 0) return
    const instant = ((bytes - this.sampledBytes) * 1000) / elapsed
    this.rate = this.sampledBytes === 0 && this.rate === 0 ? instant : this.rate + smoothing * (instant - this.rate)
    // A stalled read decays the smoothed rate forever without reaching 0: below a byte a second it is 0 (no
    // ETA), or it ends as a denormal whose ETA is Infinity, sent as null and shown "about 0.0s left" (issue 38).
    if (this.rate < 1) this.rate = 0
    this.sampledAt = now
    this.sampledBytes = bytes
  }

  /** The smoothed read rate, whole bytes per second. */
  get bytesPerSecond(): number {
    return Math.round(this.rate)
  }

  /** Percent and ETA of `bytesRead` against `totalBytes`; `reading` false once the reading is over (100%, no ETA). */
  estimate(bytesRead: number, totalBytes: number | undefined, reading: boolean): ProgressEstimate {
    if (totalBytes === undefined || totalBytes <= 0) return {}
    if (!reading) return { totalBytes, percent: 100 }
    const percent = Math.min(99, Math.floor((bytesRead / totalBytes) * 1000) / 10)
    if (this.rate <= 0 || bytesRead >= totalBytes) return { totalBytes, percent }
    const etaSeconds = Math.ceil((totalBytes - bytesRead) / this.rate)
    // Past a year it says nothing an operator can use.
    return etaSeconds > maxEtaSeconds ? { totalBytes, percent } : { totalBytes, percent, etaSeconds }
  }
}
