/**
 * @module engine/progress/ProgressTracker
 * Counts one run's progress for `RunProgress`. The hot path only touches plain numbers: a file streamed
 * from disk (or a child process) is not counted per chunk at all, its stream's own `bytesRead` is read
 * when a snapshot is taken; small files read whole add their length once. Only a stream without a
 * `bytesRead` (an HTTP body, a pass-through) goes through a counting Transform. A timer (every
 * `intervalMs`, unref'd) smooths the rate and hands snapshots to `onTick`; nothing is emitted per chunk.
 *
 * Counted once (issue 38): a job whose kinds each read the sources (archives, then restic reading the
 * folder itself) reads a folder twice, but a source's files and bytes are what its most complete reader
 * read, never the sum, so `bytesRead`, `filesRead` and the percent against the previous run's total are
 * the sources'. Written bytes are per storage: what each kind's writer says its storages got (the
 * archive's bytes for archive storages, restic's `data_added` for a restic repository).
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

/** What one reader (a tracked source instance, or a storage program reading the folder) read of one source. */
interface Reader {
  files: number
  /** Bytes of small files read whole, of finished streams, and of streams counted by a Transform. */
  settled: number
  /** The stream being read whose own `bytesRead` counts it (a file or a child's stdout). */
  reading?: { bytesRead: number }
}

const bytesOf = (reader: Reader) => reader.settled + (reader.reading?.bytesRead ?? 0)

export class ProgressTracker implements RunTracker {
  totalBytes: number | undefined
  private phaseNow: RunPhase = 'preparing'
  private currentSource: string | undefined
  private currentFile: string | undefined
  /** Per source name, per reader. */
  private readonly readers = new Map<string, Map<string, Reader>>()
  private nextReader = 0
  /** Per storage name: the counter its writer adds to (storages written together share one). */
  private readonly written = new Map<string, { bytesWritten: number }>()
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

  folderRead(source: string, reader: string, files: number, bytes: number): void {
    const counted = this.reader(source, `folder:${reader}`)
    counted.files += files
    counted.settled += bytes
  }

  writtenTo(storages: readonly string[]): { bytesWritten: number } {
    const counter = { bytesWritten: 0 }
    for (const storage of storages) this.written.set(storage, counter)
    return counter
  }

  /** Bytes written to each storage of the job, in the job's order. */
  writtenPerStorage(): { storage: string; bytesWritten: number }[] {
    return this.options.storages.map((storage) => ({ storage, bytesWritten: this.written.get(storage)?.bytesWritten ?? 0 }))
  }

  /** Each source's bytes once: what its most complete reader read. */
  bytesRead(): number {
    let sum = 0
    for (const readers of this.readers.values()) sum += Math.max(0, ...[...readers.values()].map(bytesOf))
    return sum
  }

  /** Each source's files once, as `bytesRead`. */
  get files(): number {
    let sum = 0
    for (const readers of this.readers.values()) sum += Math.max(0, ...[...readers.values()].map((reader) => reader.files))
    return sum
  }

  private reader(source: string, key: string): Reader {
    let readers = this.readers.get(source)
    if (!readers) this.readers.set(source, (readers = new Map()))
    let reader = readers.get(key)
    if (!reader) readers.set(key, (reader = { files: 0, settled: 0 }))
    return reader
  }

  trackSources(sources: Source[]): Source[] {
    return sources.map((source) => this.track(source, this.reader(source.name, `source:${this.nextReader++}`)))
  }

  /** `source`, its reads counted as `reader`'s. */
  private track(source: Source, reader: Reader): Source {
    return {
      type: source.type,
      name: source.name,
      batches: (signal: AbortSignal) => this.batches(source, reader, signal),
      ...(source.tarChunks && { tarChunks: (signal: AbortSignal, hooks: TarChunkHooks) => this.tarChunks(source, reader, signal, hooks) }),
      // What the source recorded for a restore drill, passed on as it is.
      ...(source.recorded && { recorded: () => source.recorded!() }),
      // A repository that backs the folder up itself (restic) reports its bytes through `folderRead` and `written`.
      ...(source.tree && { tree: (signal: AbortSignal) => (this.enterSource(source), source.tree!(signal)) }),
    }
  }

  /** A source building its own tar bytes reports what it read once per chunk or so. */
  private tarChunks(source: Source, reader: Reader, signal: AbortSignal, hooks: TarChunkHooks): AsyncIterable<Buffer> | undefined {
    const prefix = this.enterSource(source)
    return source.tarChunks!(signal, {
      ...hooks,
      onProgress: (files, bytes, currentFile) => {
        reader.files += files
        reader.settled += bytes
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
  private async *batches(source: Source, reader: Reader, signal: AbortSignal): AsyncIterable<SourceEntry[]> {
    const prefix = this.enterSource(source)
    for await (const batch of source.batches(signal)) {
      let last: SourceEntry | undefined
      for (let i = 0; i < batch.length; i++) {
        const entry = batch[i]!
        if (entry.type !== 'file') continue
        if (entry.data) {
          reader.files++
          reader.settled += entry.data.length
          last = entry
        } else {
          batch[i] = this.wrapEntry(entry, reader, relativeTo(entry.name, prefix))
        }
      }
      if (last) this.currentFile = relativeTo(last.name, prefix)
      yield batch
    }
  }

  /** One object per streamed file (never per chunk): `open` notes the file and counts its bytes. */
  private wrapEntry(entry: SourceEntry, reader: Reader, relative: string): SourceEntry {
    const { open } = entry
    if (!open) return entry
    return {
      ...entry,
      open: (signal) => {
        this.currentFile = relative
        reader.files++
        return this.count(reader, open.call(entry, signal))
      },
    }
  }

  /** A reader's streams are opened one after the other (the archive writers wait for each), so one is in flight. */
  private count(reader: Reader, stream: CountedStream): Readable {
    settleReading(reader)
    if (typeof stream.bytesRead === 'number') {
      reader.reading = stream as { bytesRead: number }
      return stream
    }
    const counter = new Transform({
      transform: (chunk: Buffer, _encoding, callback) => {
        reader.settled += chunk.length
        callback(null, chunk)
      },
    })
    stream.on('error', (err) => counter.destroy(err))
    // The consumer gave up (the archive failed elsewhere): stop the input too.
    counter.on('close', () => stream.destroy())
    return stream.pipe(counter)
  }

  /** Updates the smoothed rate from the bytes read since the previous sample. */
  private sample(): void {
    this.gauge.sample()
  }

  snapshot(): RunProgress {
    const bytesRead = this.bytesRead()
    const progress: RunProgress = {
      kind: this.options.kind,
      phase: this.phaseNow,
      startedAt: this.options.startedAt.toISOString(),
      ...(this.currentSource !== undefined && { currentSource: this.currentSource }),
      ...(this.currentFile !== undefined && { currentFile: this.currentFile }),
      filesRead: this.files,
      bytesRead,
      storages: this.writtenPerStorage().map((written) => ({ ...written, done: this.committed })),
      bytesPerSecond: this.gauge.bytesPerSecond,
    }
    const reading = this.phaseNow === 'preparing' || this.phaseNow === 'hooks' || this.phaseNow === 'dumping' || this.phaseNow === 'archiving'
    return Object.assign(progress, this.gauge.estimate(bytesRead, this.totalBytes, reading))
  }
}

function settleReading(reader: Reader): void {
  if (!reader.reading) return
  reader.settled += reader.reading.bytesRead
  reader.reading = undefined
}
