/**
 * @module ui/lib/formatRelative
 * Relative times for the dashboard ("in 5 minutes", "3 hours ago"). Written out rather than
 * `Intl.RelativeTimeFormat` so the wording is the same in every browser and testable in Node.
 */

const UNITS: [limitSeconds: number, seconds: number, name: string][] = [
  [60 * 60, 60, 'minute'],
  [24 * 60 * 60, 60 * 60, 'hour'],
  [30 * 24 * 60 * 60, 24 * 60 * 60, 'day'],
  [365 * 24 * 60 * 60, 30 * 24 * 60 * 60, 'month'],
  [Infinity, 365 * 24 * 60 * 60, 'year'],
]

/**
 * Formats `time` (RFC 3339 string or Date) relative to `now`. Returns `fallback` for "" or an
 * unparsable value, since the API sends "" when a time is unknown (never run, paused).
 */
export function formatRelative(time: string | Date, now: Date = new Date(), fallback = '—'): string {
  const date = typeof time === 'string' ? (time === '' ? undefined : new Date(time)) : time
  if (!date || Number.isNaN(date.getTime())) return fallback
  const ms = date.getTime() - now.getTime()
  // Within a second either way is "just now" (a run that started while the page was rendering).
  if (Math.abs(ms) < 10_000) return ms > 1000 ? 'in a few seconds' : 'just now'
  const diff = Math.round(ms / 1000)
  const abs = Math.abs(diff)
  if (abs < 60) return diff > 0 ? `in ${abs} seconds` : `${abs} seconds ago`
  for (const [limit, size, name] of UNITS) {
    if (abs < limit) {
      const count = Math.round(abs / size)
      const text = `${count} ${name}${count === 1 ? '' : 's'}`
      return diff > 0 ? `in ${text}` : `${text} ago`
    }
  }
  return fallback
}
