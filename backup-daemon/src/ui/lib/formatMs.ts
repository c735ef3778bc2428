/**
 * @module ui/lib/formatMs
 * Short human durations for the run history and the ETA: `950` -> "0.9s", `62_000` -> "1m 2s",
 * `3_723_000` -> "1h 2m". Negative or non-finite -> "—".
 */

export function formatMs(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—'
  if (ms < 10_000) return `${(Math.floor(ms / 100) / 10).toFixed(1)}s`
  const seconds = Math.round(ms / 1000)
  if (seconds < 60) return `${seconds}s`
  const minutes = Math.floor(seconds / 60)
  if (minutes < 60) return `${minutes}m ${seconds % 60}s`
  const hours = Math.floor(minutes / 60)
  return `${hours}h ${minutes % 60}m`
}
