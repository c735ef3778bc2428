/**
 * @module ui/lib/formatUptime
 * The daemon's uptime (whole seconds from `GET /status`) as the two largest units: "42s", "5m 12s",
 * "3h 4m", "2d 3h".
 */

const UNITS: [seconds: number, suffix: string][] = [
  [86_400, 'd'],
  [3_600, 'h'],
  [60, 'm'],
  [1, 's'],
]

/** `0` -> "0s", `312` -> "5m 12s", `183600` -> "2d 3h"; negative or non-finite -> "—". */
export function formatUptime(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '—'
  let rest = Math.floor(seconds)
  const parts: string[] = []
  for (const [size, suffix] of UNITS) {
    const count = Math.floor(rest / size)
    rest -= count * size
    if (count > 0 || parts.length > 0) parts.push(`${count}${suffix}`)
    if (parts.length === 2) break
  }
  // Drop a trailing zero unit ("3h 0m" -> "3h").
  if (parts.length === 2 && parts[1]!.startsWith('0')) parts.pop()
  return parts.length > 0 ? parts.join(' ') : '0s'
}
