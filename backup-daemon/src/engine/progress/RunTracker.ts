/**
 * @module engine/progress/RunTracker
 * What `runJob` tells about its progress: phases, the sources it reads (wrapped so entries are counted)
 * and the per-storage counters the writers add what their storages got to. `noopTracker` counts
 * nothing (the CLI's verify and the benchmark's baseline); `ProgressTracker` counts.
 */
import type { Source } from '../../sources/types.js'
import type { RunPhase } from '../../runs/progress.js'

export interface RunTracker {
  phase(phase: RunPhase): void
  /** The sources to read instead of `sources` (the same entries, counted). */
  trackSources(sources: Source[]): Source[]
  /** The counter of the bytes written to `storages` (written together, e.g. every archive storage of the job). */
  writtenTo(storages: readonly string[]): { bytesWritten: number }
  /** Files and bytes of `source`'s folder read by a storage's own program (restic, as `reader`), not through `trackSources`. */
  folderRead(source: string, reader: string, files: number, bytes: number): void
  /** Every storage holds the committed snapshot. */
  storagesCommitted(): void
}

export const noopTracker: RunTracker = {
  phase() {},
  trackSources: (sources) => sources,
  // A counter never read: adding to it costs what the real counter costs.
  writtenTo: () => ({ bytesWritten: 0 }),
  folderRead() {},
  storagesCommitted() {},
}
