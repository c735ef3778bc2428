/**
 * @module ui/lib/timeAxisLabels
 * The two end labels of a time axis, as precise as the span needs: runs of one day read "12/1/2026, 08:05"
 * and "20:48" (the same date at both ends said nothing, issue 38), runs of a few days carry date and time
 * at both ends, longer spans the dates. In the browser's locale (`locale` for tests).
 */

const time: Intl.DateTimeFormatOptions = { hour: '2-digit', minute: '2-digit' }
const day = 86_400_000

export function timeAxisLabels(first: Date, last: Date, locale?: string): [string, string] {
  const date = (d: Date) => d.toLocaleDateString(locale)
  const clock = (d: Date) => d.toLocaleTimeString(locale, time)
  if (date(first) === date(last)) return [`${date(first)}, ${clock(first)}`, clock(last)]
  if (last.getTime() - first.getTime() < 3 * day) return [`${date(first)}, ${clock(first)}`, `${date(last)}, ${clock(last)}`]
  return [date(first), date(last)]
}
