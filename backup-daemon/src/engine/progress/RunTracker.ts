/**
 * @module engine/progress/RunTracker
 * What `runJob` tells about its progress: phases, the sources it reads (wrapped so entries are counted)
 * and the counter `writeSnapshot` adds the bytes it hands to the storages to. `noopTracker` counts
 * nothing (the CLI's verify and the benchmark's baseline); `ProgressTracker` counts.
 */
import type { Source } from '../../sources/types.js'
import type { RunPhase } from '../../runs/progress.js'

export interface RunTracker {
  phase(phase: RunPhase): void
  /** The sources to read instead of `sources` (the same entries, counted). */
  trackSources(sources: Source[]): Source[]
  /** Incremented by the snapshot writer for every byte handed to the storages. */
  readonly written: { bytesWritten: number }
  /** Files and bytes of a source's folder read by the storage's own program (restic), not through `trackSources`. */
  folderRead(files: number, bytes: number): void
  /** Every storage holds the committed snapshot. */
  storagesCommitted(): void
}

export const noopTracker: RunTracker = {
  phase() {},
  trackSources: (sources) => sources,
  // Shared and never read: adding to it costs what the real counter costs.
  written: { bytesWritten: 0 },
  folderRead() {},
  storagesCommitted() {},
}
