/** @jsxImportSource preact */
/**
 * @module ui/app/components/RelativeTime
 * A `<time>` showing "in 5 minutes" / "3 hours ago", with the exact local time as its tooltip.
 * Re-rendered by the page's refresh timer.
 */
import { formatRelative } from '../../lib/formatRelative.js'

export function RelativeTime({ time, empty = '—' }: { time?: string; empty?: string }) {
  if (!time) return <span class="muted">{empty}</span>
  const date = new Date(time)
  if (Number.isNaN(date.getTime())) return <span>{time}</span>
  return (
    <time dateTime={time} title={date.toLocaleString()}>
      {formatRelative(date, new Date(), empty)}
    </time>
  )
}
