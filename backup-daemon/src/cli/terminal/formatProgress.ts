/**
 * @module cli/terminal/formatProgress
 * One line of a run's progress for a terminal or a journal, from the engine's `RunProgress` (the figures
 * the web UI shows, formatted with the UI's own `formatBytes` and `formatMs`):
 * `archiving  12.3 MiB / 48 MiB  25.6%  8.1 MiB/s  ETA 5.0s  tree: photos/2024/a.jpg`.
 */
import type { RunProgress } from '../../runs/progress.js'
import { formatBytes } from '../../ui/lib/formatBytes.js'
import { formatMs } from '../../ui/lib/formatMs.js'

/** The parts of the line, so a terminal can colour the phase and cut the path, not the figures. */
export interface ProgressParts {
  phase: string
  figures: string
  /** `source: file`, the source alone, or "". */
  where: string
}

export function progressParts(progress: RunProgress): ProgressParts {
  const { bytesRead, totalBytes, percent, bytesPerSecond, etaSeconds } = progress
  const figures = [
    totalBytes !== undefined ? `${formatBytes(bytesRead)} / ${formatBytes(totalBytes)}` : formatBytes(bytesRead),
    percent !== undefined ? `${percent.toFixed(1)}%` : '',
    bytesPerSecond > 0 ? `${formatBytes(bytesPerSecond)}/s` : '',
    etaSeconds !== undefined ? `ETA ${formatMs(etaSeconds * 1000)}` : '',
  ].filter(Boolean)
  const where = [progress.currentSource, progress.currentFile].filter((part) => part !== undefined && part !== '').join(': ')
  return { phase: progress.phase, figures: figures.join('  '), where }
}

/** The whole line, cut to `width` characters (the path is shortened from its start: its end names the file). */
export function formatProgress(progress: RunProgress, width = Infinity): string {
  const { phase, figures, where } = progressParts(progress)
  const head = `${phase.padEnd(9)}  ${figures}`
  if (!where) return head.slice(0, width)
  const room = width - head.length - 2
  if (room >= where.length) return `${head}  ${where}`
  if (room < 8) return head.slice(0, width)
  return `${head}  …${where.slice(where.length - room + 1)}`
}
