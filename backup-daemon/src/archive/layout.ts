/**
 * @module archive/layout
 * Where a snapshot's objects live in a storage, and how a listing is read back without opening any
 * object. Everything of job `J` is below `J/`:
 *
 * - `J/<name>`: an archive in one piece, `<name>` = `J-<UTC time>.tar[.gz]`;
 * - `J/<name>.parts-<N>-<totalBytes>/<name>.part-aaa` ...: a split set (the original service's naming,
 *   so a listing knows the count and size from the folder name); the set ID is `<name>`;
 * - `J/<name>.manifest.json`: written last; a snapshot without it is not committed and never listed.
 */
import type { Compression } from '../config/types.js'

export const manifestSuffix = '.manifest.json'

/**
 * `job-2026-01-31T02-00-00-000Z.tar.gz` (`.tar.zst.age` when encrypted): sortable, unique per run, safe
 * in URLs and file names, and the extension says how to open it.
 */
export function snapshotName(job: string, createdAt: Date, compression: Compression, encrypted = false): string {
  return `${job}-${createdAt.toISOString().replace(/[:.]/g, '-')}.${compression}${encrypted ? '.age' : ''}`
}

/** The creation time encoded by `snapshotName`, or undefined for a name it did not make. */
export function createdAtOf(name: string): Date | undefined {
  const match = /-(\d{4}-\d\d-\d\dT\d\d)-(\d\d)-(\d\d)-(\d{3})Z\.tar(?:\.gz|\.zst)?(?:\.age)?$/.exec(name)
  if (!match) return undefined
  const date = new Date(`${match[1]}:${match[2]}:${match[3]}.${match[4]}Z`)
  return Number.isNaN(date.getTime()) ? undefined : date
}

export const wholeKey = (job: string, name: string) => `${job}/${name}`
export const manifestKey = (job: string, name: string) => `${job}/${name}${manifestSuffix}`
export const partsFolder = (job: string, name: string, count: number, total: number) => `${job}/${name}.parts-${count}-${total}`

/** `aaa`, `aab`, ... like `split -a 3`; a fourth letter appears past 17576 parts. */
export function partSuffix(index: number): string {
  let letters = ''
  let n = index
  for (let i = 0; i < 3 || n > 0; i++) {
    letters = String.fromCharCode(97 + (n % 26)) + letters
    n = Math.floor(n / 26)
  }
  return letters
}

export const partKey = (folder: string, name: string, index: number) => `${folder}/${name}.part-${partSuffix(index)}`

/** Reads `J/<name>.parts-<N>-<total>/...` back. */
export function parsePartsFolder(job: string, key: string): { name: string; count: number; total: number; folder: string } | undefined {
  const match = /^(.+)\.parts-(\d+)-(\d+)\/[^/]+$/.exec(key.slice(job.length + 1))
  if (!key.startsWith(`${job}/`) || !match) return undefined
  const [, name = '', count = '0', total = '0'] = match
  return { name, count: Number(count), total: Number(total), folder: `${job}/${name}.parts-${count}-${total}` }
}
