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
 * - Files: a meter that also counts files against a known number (a restore or drill of a million small
 *   files, whose bytes are nothing beside the cost of creating and reading back each file) bases the percent
 *   and the ETA on work, bytes plus `fileWeight` bytes per file; the rate it reports stays in bytes. Bytes
 *   alone, such a drill sat at 99.0% for the 7 minutes of its comparison (issue 42).
 */
import type { RunProgress } from './progress.js'

/** Default period of the samples: at most 4 progress snapshots a second. */
export const progressIntervalMs = 250
/** Weight of the newest sample in the smoothed rate (one slow tick does not make the ETA jump). */
const smoothing = 0.3
/**
 * What one file costs, in bytes of reading: creating a small file, or reading one back, took 35-55 µs here
 * (bench daemon-restore-files, 200,000 files), about the time 16 KiB of a large file took.
 */
export const fileWeight = 16 * 1024

export interface ProgressGaugeOptions {
  startedAt: Date
  /** The bytes read so far; read once per sample, never per chunk. */
  bytesRead(): number
  /** The files done so far, where the meter counts them against a known number (see the module's comment). */
  filesRead?(): number
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

/** A smoothed rate of one counter. */
class SmoothedRate {
  value = 0
  private last = 0
  update(count: number, elapsedMs: number): void {
    const instant = ((count - this.last) * 1000) / elapsedMs
    this.value = this.last === 0 && this.value === 0 ? instant : this.value + smoothing * (instant - this.value)
    // A stalled read decays the smoothed rate forever without reaching 0: below one a second it is 0 (no
    // ETA), or it ends as a denormal whose ETA is Infinity, sent as null and shown "about 0.0s left" (issue 38).
    if (this.value < 1) this.value = 0
    this.last = count
  }
}

export class ProgressGauge {
  private readonly bytes = new SmoothedRate()
  /** Bytes plus `fileWeight` per file: what the percent and ETA of a meter that counts files go by. */
  private readonly work = new SmoothedRate()
  private sampledAt: number
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

  /** Updates the smoothed rates from what was read since the previous sample. */
  sample(): void {
    const now = this.now()
    const elapsed = now - this.sampledAt
    if (elapsed <= 0) return
    const bytes = this.options.bytesRead()
    this.bytes.update(bytes, elapsed)
    if (this.options.filesRead) this.work.update(bytes + this.options.filesRead() * fileWeight, elapsed)
    this.sampledAt = now
  }

  /** The smoothed read rate, whole bytes per second. */
  get bytesPerSecond(): number {
    return Math.round(this.bytes.value)
  }

  /**
   * Percent and ETA of `bytesRead` against `totalBytes`; `reading` false once the reading is over (100%, no
   * ETA). With `files` (done and expected), of the work: bytes plus `fileWeight` per file.
   */
  estimate(bytesRead: number, totalBytes: number | undefined, reading: boolean, files?: { read: number; total: number }): ProgressEstimate {
    if (totalBytes === undefined || totalBytes <= 0) return {}
    if (!reading) return { totalBytes, percent: 100 }
    const byFiles = files && files.total > 0 && this.options.filesRead
    const done = byFiles ? bytesRead + files.read * fileWeight : bytesRead
    const total = byFiles ? totalBytes + files.total * fileWeight : totalBytes
    const rate = byFiles ? this.work.value : this.bytes.value
    const percent = Math.min(99, Math.floor((done / total) * 1000) / 10)
    if (rate <= 0 || done >= total) return { totalBytes, percent }
    const etaSeconds = Math.ceil((total - done) / rate)
    // Past a year it says nothing an operator can use.
    return etaSeconds > maxEtaSeconds ? { totalBytes, percent } : { totalBytes, percent, etaSeconds }
  }
}
