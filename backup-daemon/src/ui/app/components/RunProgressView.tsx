/** @jsxImportSource preact */
/**
 * @module ui/app/components/RunProgressView
 * Minimal progress display of a run (placeholder made by branch `restore` for its dialog; branch
 * `progress` owns this file and its version replaces this one at merge).
 */
import type { RunProgress } from '../../../engine/progress/types.js'
import { formatBytes } from '../../lib/formatBytes.js'

export function RunProgressView({ progress, compact = false }: { progress: RunProgress; compact?: boolean }) {
  const percent = progress.percent
  return (
    <div class="run-progress" data-phase={progress.phase}>
      {percent !== undefined && <progress max={100} value={percent} aria-label={`${progress.kind} progress`} />}
      <span class="muted">
        {progress.phase}: {formatBytes(progress.bytesRead)}
        {progress.totalBytes !== undefined ? ` of ${formatBytes(progress.totalBytes)}` : ''}
        {percent !== undefined ? ` (${percent}%)` : ''}
        {!compact && progress.filesRead > 0 ? `, ${progress.filesRead} file(s)` : ''}
        {!compact && progress.etaSeconds !== undefined ? `, about ${progress.etaSeconds} s left` : ''}
      </span>
    </div>
  )
}
