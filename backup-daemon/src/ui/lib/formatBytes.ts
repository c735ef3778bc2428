/**
 * @module ui/lib/formatBytes
 * Human sizes for the snapshots table, in binary units (1 KiB = 1024 bytes) because storages and
 * `du` report them so.
 */

const UNITS = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB']

/** `0` -> "0 B", `1536` -> "1.5 KiB", `10 * 1024 ** 3` -> "10 GiB". Negative or non-finite -> "—". */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—'
  if (bytes < 1024) return `${Math.round(bytes)} B`
  let value = bytes
  let unit = -1
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024
    unit += 1
  }
  // One decimal below 100 ("1.5 MiB", "12.3 GiB"), none above ("512 MiB"); drop a trailing ".0".
  const text = value < 100 ? value.toFixed(1).replace(/\.0$/, '') : Math.round(value).toString()
  return `${text} ${UNITS[unit]}`
}
