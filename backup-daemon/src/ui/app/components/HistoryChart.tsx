/** @jsxImportSource preact */
/**
 * @module ui/app/components/HistoryChart
 * Duration and size of a job's backups over time, as plain SVG: bars for the bytes written (left
 * scale), a line with dots for the duration (right scale), oldest on the left. A user sees at a glance
 * when backups grew or slowed. Failed runs are marked (a red dot and a hatched bar). Each run has a
 * tooltip (`<title>`) with its numbers, and the chart has a text summary for screen readers.
 */
import type { RunRecord } from '../../../runs/history.js'
import { formatBytes } from '../../lib/formatBytes.js'
import { formatMs } from '../../lib/formatMs.js'
import { timeAxisLabels } from '../../lib/timeAxisLabels.js'

const W = 640
const H = 200
const PAD = { left: 64, right: 56, top: 12, bottom: 28 }

export function HistoryChart({ runs }: { runs: RunRecord[] }) {
  const backups = runs.filter((r) => r.kind === 'backup').reverse()
  if (backups.length < 2) return null
  const maxBytes = Math.max(1, ...backups.map((r) => r.bytesWritten))
  const maxMs = Math.max(1, ...backups.map((r) => r.durationMs))
  const plotW = W - PAD.left - PAD.right
  const plotH = H - PAD.top - PAD.bottom
  const step = plotW / backups.length
  const barW = Math.max(2, Math.min(28, step * 0.6))
  const x = (i: number) => PAD.left + step * i + step / 2
  const yBytes = (b: number) => PAD.top + plotH - (b / maxBytes) * plotH
  const yMs = (ms: number) => PAD.top + plotH - (ms / maxMs) * plotH
  const line = backups.map((r, i) => `${i ? 'L' : 'M'}${x(i).toFixed(1)},${yMs(r.durationMs).toFixed(1)}`).join(' ')
  const first = backups[0]!
  const last = backups.at(-1)!
  const [from, to] = timeAxisLabels(new Date(first.startedAt), new Date(last.startedAt))
  const summary =
    `${backups.length} backups from ${new Date(first.startedAt).toLocaleString()} to ${new Date(last.startedAt).toLocaleString()}: ` +
    `size ${formatBytes(first.bytesWritten)} to ${formatBytes(last.bytesWritten)} (largest ${formatBytes(maxBytes)}), ` +
    `duration ${formatMs(first.durationMs)} to ${formatMs(last.durationMs)} (longest ${formatMs(maxMs)}).`
  return (
    <figure class="history-chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`Backup size and duration over time. ${summary}`} preserveAspectRatio="xMidYMid meet">
        <title>Backup size and duration over time</title>
        <defs>
          <pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
            <rect width="3" height="6" class="chart-failed-fill" />
          </pattern>
        </defs>
        <line class="chart-axis" x1={PAD.left} y1={PAD.top + plotH} x2={W - PAD.right} y2={PAD.top + plotH} />
        <text class="chart-label" x={PAD.left - 6} y={PAD.top + 8} text-anchor="end">
          {formatBytes(maxBytes)}
        </text>
        <text class="chart-label" x={PAD.left - 6} y={PAD.top + plotH} text-anchor="end">
          0
        </text>
        <text class="chart-label duration" x={W - PAD.right + 6} y={PAD.top + 8}>
          {formatMs(maxMs)}
        </text>
        <text class="chart-label" x={PAD.left} y={H - 8} data-axis="from">
          {from}
        </text>
        <text class="chart-label" x={W - PAD.right} y={H - 8} text-anchor="end" data-axis="to">
          {to}
        </text>
        {backups.map((r, i) => (
          <rect
            key={r.id}
            class={`chart-bar ${r.result}`}
            data-run={r.id}
            x={x(i) - barW / 2}
            y={yBytes(r.bytesWritten)}
            width={barW}
            height={Math.max(0, PAD.top + plotH - yBytes(r.bytesWritten))}
            fill={r.result === 'success' ? undefined : 'url(#hatch)'}
          >
            <title>{`${new Date(r.startedAt).toLocaleString()}: ${r.result}, ${formatBytes(r.bytesWritten)} written, ${formatMs(r.durationMs)}`}</title>
          </rect>
        ))}
        <path class="chart-line" d={line} />
        {backups.map((r, i) => (
          <circle key={r.id} class={`chart-dot ${r.result}`} data-run={r.id} cx={x(i)} cy={yMs(r.durationMs)} r={3.5}>
            <title>{`${formatMs(r.durationMs)} (${r.result})`}</title>
          </circle>
        ))}
      </svg>
      <figcaption class="small muted">
        <span class="legend-bar" aria-hidden="true" /> size written (left) · <span class="legend-line" aria-hidden="true" /> duration (right)
      </figcaption>
    </figure>
  )
}
