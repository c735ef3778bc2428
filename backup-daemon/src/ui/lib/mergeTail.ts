/**
 * @module ui/lib/mergeTail
 * Joins a log tail fetched as JSON with the live lines that arrived on the stream while it was being
 * fetched. The stream is opened first (so nothing is missed), which means its first lines may also be
 * at the end of the tail: the longest overlap is dropped once. Lines carry millisecond timestamps,
 * so an accidental overlap of identical lines is not a practical concern.
 */

export function mergeTail(tail: readonly string[], live: readonly string[]): string[] {
  for (let k = Math.min(tail.length, live.length); k > 0; k--) {
    let same = true
    for (let i = 0; i < k && same; i++) same = tail[tail.length - k + i] === live[i]
    if (same) return [...tail, ...live.slice(k)]
  }
  return [...tail, ...live]
}
