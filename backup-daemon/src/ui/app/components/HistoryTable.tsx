/** @jsxImportSource preact */
/**
 * @module ui/app/components/HistoryTable
 * The job's recent runs, newest first: start, trigger, result, duration, bytes read and written, the
 * snapshot and the error of a failed run. One card per run on a phone (the `responsive` table CSS).
 */
import type { RunRecord } from '../../../runs/history.js'
import { formatBytes } from '../../lib/formatBytes.js'
import { formatMs } from '../../lib/formatMs.js'
import { RelativeTime } from './RelativeTime.js'

export type { RunRecord }

const RESULT_WORDS = { success: '✓ success', failed: '✗ failed', cancelled: '■ cancelled' } as const

export function HistoryTable({ runs }: { runs: RunRecord[] }) {
  if (runs.length === 0) return <p class="muted">No run has ended yet.</p>
  return (
    <table class="history-table responsive">
      <thead>
        <tr>
          <th scope="col">Started</th>
          <th scope="col">Kind</th>
          <th scope="col">Trigger</th>
          <th scope="col">Result</th>
          <th scope="col">Duration</th>
          <th scope="col">Read</th>
          <th scope="col">Written</th>
          <th scope="col">Snapshot</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((run) => (
          <tr key={run.id} data-run={run.id} data-result={run.result}>
            <th scope="row" data-label="Started">
              <RelativeTime time={run.startedAt} />
            </th>
            <td data-label="Kind">{run.kind}</td>
            <td data-label="Trigger">{run.trigger}</td>
            <td data-label="Result">
              <span class={`history-result ${run.result}`} title={run.error}>
                {RESULT_WORDS[run.result]}
                {run.error && run.error !== run.result ? `: ${run.error}` : ''}
              </span>
            </td>
            <td data-label="Duration">{formatMs(run.durationMs)}</td>
            <td data-label="Read">
              {formatBytes(run.bytesRead)}
              {run.filesRead !== undefined && <span class="muted small"> · {run.filesRead} file(s)</span>}
            </td>
            <td data-label="Written">{formatBytes(run.bytesWritten)}</td>
            <td data-label="Snapshot" class="snapshot-name">
              {run.snapshot ?? <span class="muted">—</span>}
              {run.target ? ` → ${run.target}` : ''}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}
