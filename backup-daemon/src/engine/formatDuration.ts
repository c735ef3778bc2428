/**
 * @module engine/formatDuration
 * Durations as the original service printed them (Go's `time.Duration` style): `350ms`, `2.5s`, `1m2.5s`, `1h0m3s`.
 */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`
  const hours = Math.floor(ms / 3_600_000)
  const minutes = Math.floor((ms % 3_600_000) / 60_000)
  const seconds = Number(((ms % 60_000) / 1000).toFixed(3))
  const s = `${seconds}s`
  if (hours) return `${hours}h${minutes}m${s}`
  if (minutes) return `${minutes}m${s}`
  return s
}
