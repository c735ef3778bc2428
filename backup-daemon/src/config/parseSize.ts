/**
 * @module config/parseSize
 * Byte sizes as the original service writes them (`split.chunkSize: 1GB`): a number with `B`, `KB`/`KiB`,
 * `MB`/`MiB`, `GB`/`GiB` or `TB`/`TiB`, every unit a power of 1024 (`1MB` = 1048576, as the original
 * reads it), or a plain number of bytes.
 */

const units: Record<string, number> = { b: 0, kb: 1, kib: 1, mb: 2, mib: 2, gb: 3, gib: 3, tb: 4, tib: 4 }

/** Bytes, or an error message for a string that is not a size. */
export function parseSize(value: string | number): number | { error: string } {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : { error: `expected a whole number of bytes, got ${value}` }
  const match = /^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*$/.exec(value)
  const power = match ? (units[match[2]!.toLowerCase()] ?? (match[2] === '' ? 0 : undefined)) : undefined
  if (!match || power === undefined) return { error: `"${value}" is not a size; use a number with B, KB/KiB, MB/MiB, GB/GiB or TB/TiB (e.g. 1GB)` }
  const bytes = Math.round(Number(match[1]) * 1024 ** power)
  return Number.isSafeInteger(bytes) ? bytes : { error: `"${value}" is too large` }
}
