/**
 * @module engine/progress/ProgressTracker
 * Counts one run's progress for `RunProgress`. The hot path only touches plain numbers: a file streamed
 * from disk (or a child process) is not counted per chunk at all, its stream's own `bytesRead` is read
 * when a snapshot is taken; small files read whole add their length once. Only a stream without a
 * `bytesRead` (an HTTP body, a pass-through) goes through a counting Transform. A timer (every
 * `intervalMs`, unref'd) smooths the rate and hands snapshots to `onTick`; nothing is emitted per chunk.
 */
import { Transform, type Readable } from 'node:stream'
import { sourceFactory } from '../../sources/all.js'
import type { Source, SourceEntry, TarChunkHooks } from '../../sources/types.js'
import { ProgressGauge } from '../../runs/ProgressGauge.js'
import type { RunTracker } from './RunTracker.js'
import type { RunPhase, RunProgress } from '../../runs/progress.js'

export interface ProgressTrackerOptions {
  kind: RunProgress['kind']
  startedAt: Date
  /** Names of the storages written, in the job's order. */
  storages: string[]
  totalBytes?: number
  /** Milliseconds between snapshots handed to `onTick` (at most 4 per second by default). @default 250 */
  intervalMs?: number
  onTick?(progress: RunProgress): void
  /** @default Date.now */
  now?(): number
}

type CountedStream = Readable & { bytesRead?: unknown }

const relativeTo = (name: string, prefix: string) => (name.startsWith(prefix) ? name.slice(prefix.length) : name)

export class ProgressTracker implements RunTracker {
  readonly written = { bytesWritten: 0 }
  totalBytes: number | undefined
  private phaseNow: RunPhase = 'preparing'
  private currentSource: string | undefined
  private currentFile: string | undefined
  private filesRead = 0
  /** Bytes of small files read whole, of finished streams, and of streams counted by a Transform. */
  private settledBytes = 0
  /** The stream being read whose own `bytesRead` counts it (a file or a child's stdout). */
  private reading: { bytesRead: number } | undefined
  private committed = false
  /** Throttle, rate, percent and ETA: the calculation shared with the restore and verify tasks. */
  private readonly gauge: ProgressGauge

  constructor(private readonly options: ProgressTrackerOptions) {
    const { startedAt, intervalMs, now } = options
    const onSample = () => options.onTick?.(this.snapshot())
    this.gauge = new ProgressGauge({ startedAt, intervalMs, now, bytesRead: () => this.bytesRead(), onSample })
    this.totalBytes = options.totalBytes
  }

  /** Starts the snapshot timer; `stop()` ends it. */
  start(): this {
    this.gauge.start()
    return this
  }

  stop(): void {
    this.gauge.stop()
  }

  phase(phase: RunPhase): void {
    this.phaseNow = phase
    if (phase === 'uploading' || phase === 'retention' || phase === 'finishing') this.currentFile = undefined
  }

  storagesCommitted(): void {
    this.committed = true
  }

  folderRead(files: number, bytes: number): void {
    this.filesRead += files
    this.settledBytes += bytes
  }

  bytesRead(): number {
    return this.settledBytes + (this.reading?.bytesRead ?? 0)
  }

  get files(): number {
    return this.filesRead
  }

  trackSources(sources: Source[]): Source[] {
    return sources.map((source) => ({
      type: source.type,
      name: source.name,
      batches: (signal: AbortSignal) => this.batches(source, signal),
      ...(source.tarChunks && { tarChunks: (signal: AbortSignal, hooks: TarChunkHooks) => this.tarChunks(source, signal, hooks) }),
      // What the source recorded for a restore drill, passed on as it is.
      ...(source.recorded && { recorded: () => source.recorded!() }),
      // A repository that backs the folder up itself (restic) reports its bytes through `folderRead` and `written`.
      ...(source.tree && { tree: (signal: AbortSignal) => (this.enterSource(source), source.tree!(signal)) }),
    }))
  }

  /** A source building its own tar bytes reports what it read once per chunk or so. */
  private tarChunks(source: Source, signal: AbortSignal, hooks: TarChunkHooks): AsyncIterable<Buffer> | undefined {
    const prefix = this.enterSource(source)
    return source.tarChunks!(signal, {
      ...hooks,
      onProgress: (files, bytes, currentFile) => {
        this.filesRead += files
        this.settledBytes += bytes
        if (currentFile !== undefined) this.currentFile = relativeTo(currentFile, prefix)
        hooks.onProgress?.(files, bytes, currentFile)
      },
    })
  }

  private enterSource(source: Source): string {
    this.currentSource = source.name
    this.currentFile = undefined
    // A source whose kind makes a dump for the run (`SourceFactory.dumps`) is dumping, not copying files.
    this.phase(sourceFactory(source.type)?.dumps ? 'dumping' : 'archiving')
    return `${source.name}/`
  }

  /** Per batch: files already read (`data`) are counted in one loop, with no new object; streamed ones are wrapped. */
  private async *batches(source: Source, signal: AbortSignal): AsyncIterable<SourceEntry[]> {
    const prefix = this.enterSource(source)
    for await (const batch of source.batches(signal)) {
      let last: SourceEntry | undefined
      for (let i = 0; i < batch.length; i++) {
        const entry = batch[i]!
        if (entry.type !== 'file') continue
        if (entry.data) {
          this.filesRead++
          this.settledBytes += entry.data.length
          last = entry
        } else {
          batch[i] = this.wrapEntry(entry, relativeTo(entry.name, prefix))
        }
      }
      if (last) this.currentFile = relativeTo(last.name, prefix)
      yield batch
    }
  }

  /** One object per streamed file (never per chunk): `open` notes the file and counts its bytes. */
  private wrapEntry(entry: SourceEntry, relative: string): SourceEntry {
    const { open } = entry
    if (!open) return entry
    return {
      ...entry,
      open: (signal) => {
        this.currentFile = relative
        this.filesRead++
        return this.count(open.call(entry, signal))
      },
    }
  }

  /** Streams are opened one after the other (the archive writers wait for each), so one is in flight. */
  private count(stream: CountedStream): Readable {
    this.settleReading()
    if (typeof stream.bytesRead === 'number') {
      this.reading = stream as { bytesRead: number }
      return stream
    }
    const counter = new Transform({
      transform: (chunk: Buffer, _encoding, callback) => {
        this.settledBytes += chunk.length
        callback(null, chunk)
      },
    })
    stream.on('error', (err) => counter.destroy(err))
    // The consumer gave up (the archive failed elsewhere): stop the input too.
    counter.on('close', () => stream.destroy())
    return stream.pipe(counter)
  }

  private settleReading(): void {
    if (!this.reading) return
    this.settledBytes += this.reading.bytesRead
    this.reading = undefined
  }

  /** Updates the smoothed rate from the bytes read since the previous sample. */
  private sample(): void {
    this.gauge.sample()
  }

  snapshot(): RunProgress {
    const bytesRead = this.bytesRead()
    const bytesWritten = this.written.bytesWritten
    const progress: RunProgress = {
      kind: this.options.kind,
      phase: this.phaseNow,
      startedAt: this.options.startedAt.toISOString(),
      ...(this.currentSource !== undefined && { currentSource: this.currentSource }),
      ...(this.currentFile !== undefined && { currentFile: this.currentFile }),
      filesRead: this.filesRead,
      bytesRead,
      storages: this.options.storages.map((storage) => ({ storage, bytesWritten, done: this.committed })),
      bytesPerSecond: this.gauge.bytesPerSecond,
    }
    const reading = this.phaseNow === 'preparing' || this.phaseNow === 'hooks' || this.phaseNow === 'dumping' || this.phaseNow === 'archiving'
    return Object.assign(progress, this.gauge.estimate(bytesRead, this.totalBytes, reading))
  }
}
