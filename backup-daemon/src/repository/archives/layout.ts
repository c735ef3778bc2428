/**
 * @module repository/archives/layout
 * Where a snapshot's objects live in a storage, and how a listing is read back without opening any
 * object. Everything of job `J` is in its folder: `J/` (the default, `includeJobName: true`), or the
 * storage's root (`includeJobName: false`, several jobs sharing one folder, told apart by the `J-`
 * prefix of every name):
 *
 * - `<name>`: an archive in one piece;
 * - `<name>.parts-<N>-<totalBytes>/<name>.part-aaa` ...: a split set (the original service's naming,
 *   so a listing knows the count and size from the folder name); the set ID is `<name>`;
 * - `<name>.manifest.json`: written last by this daemon; a snapshot of ours without it is not committed
 *   and never listed.
 *
 * Two name forms are read. Ours: `J-2026-01-31T02-00-00-000Z.<ext>[.age|.enc]` (needs the manifest).
 * The original service's: `J-20260131-020000.<ext>[.enc]` (UTC; it never wrote a manifest, so these are
 * listed as they are, unchecksummed). Temporary objects of ours are always written below `J/`, even with
 * `includeJobName: false`, so a crashed run's leftovers can be told from another job's.
 */
import type { Compression } from '../../config/types.js'

export const manifestSuffix = '.manifest.json'

export const compressions: readonly Compression[] = ['tar', 'tar.gz', 'tar.zst', 'tar.xz', 'zip']

export type SnapshotEncryption = 'age' | 'openssl'

const encryptionSuffix: Record<SnapshotEncryption, string> = { age: '.age', openssl: '.enc' }

/**
 * `job-2026-01-31T02-00-00-000Z.tar.gz` (`.tar.zst.age` with age, `.tar.gz.enc` with openssl): sortable,
 * unique per run, safe in URLs and file names, and the extension says how to open it. `true` means age.
 */
export function snapshotName(job: string, createdAt: Date, compression: Compression, encryption?: SnapshotEncryption | boolean): string {
  const kind = encryption === true ? 'age' : encryption || undefined
  return `${job}-${createdAt.toISOString().replace(/[:.]/g, '-')}.${compression}${kind ? encryptionSuffix[kind] : ''}`
}

export interface ParsedName {
  /** `daemon`: written by this daemon (committed only with its manifest); `original`: the original service's. */
  form: 'daemon' | 'original'
  createdAt: Date
  compression: Compression
  encryption?: SnapshotEncryption
}

const extension = String.raw`(tar|tar\.gz|tar\.zst|tar\.xz|zip)`
const daemonForm = new RegExp(String.raw`^(\d{4}-\d\d-\d\dT\d\d)-(\d\d)-(\d\d)-(\d{3})Z\.${extension}(\.age|\.enc)?$`)
const originalForm = new RegExp(String.raw`^(\d{4})(\d\d)(\d\d)-(\d\d)(\d\d)(\d\d)\.${extension}(\.enc)?$`)

/** What a snapshot name of job `job` says (either form), or undefined for any other name. */
export function parseSnapshotName(job: string, name: string): ParsedName | undefined {
  if (!name.startsWith(`${job}-`)) return undefined
  const rest = name.slice(job.length + 1)
  const ours = daemonForm.exec(rest)
  if (ours) {
    const [, hour = '', minute, second, ms, compression, suffix] = ours
    return dated('daemon', new Date(`${hour}:${minute}:${second}.${ms}Z`), compression as Compression, suffix)
  }
  const theirs = originalForm.exec(rest)
  if (theirs) {
    const [, y, mo, d, h, mi, s, compression, suffix] = theirs
    return dated('original', new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}Z`), compression as Compression, suffix)
  }
  return undefined
}

function dated(form: ParsedName['form'], createdAt: Date, compression: Compression, suffix: string | undefined): ParsedName | undefined {
  if (Number.isNaN(createdAt.getTime())) return undefined
  const encryption: SnapshotEncryption | undefined = suffix === '.age' ? 'age' : suffix === '.enc' ? 'openssl' : undefined
  return { form, createdAt, compression, ...(encryption && { encryption }) }
}

/**
 * The folder of a job's snapshots in a storage, as a key prefix: `J/`, or `''` with `includeJobName: false`.
 * Temporary objects always go to `J/` (`tempDir`).
 */
export interface JobLayout {
  job: string
  prefix: string
}

export const jobLayout = (job: string, includeJobName = true): JobLayout => ({ job, prefix: includeJobName ? `${job}/` : '' })

/** Where a run writes its temporary objects (below `J/` in both layouts). */
export const tempDir = (layout: JobLayout) => layout.job

/** Either a layout or a job name (its default layout, `J/`). */
export type LayoutOrJob = JobLayout | string

export const layoutOf = (value: LayoutOrJob): JobLayout => (typeof value === 'string' ? jobLayout(value) : value)

export const wholeKey = (layout: LayoutOrJob, name: string) => `${layoutOf(layout).prefix}${name}`
export const manifestKey = (layout: LayoutOrJob, name: string) => `${layoutOf(layout).prefix}${name}${manifestSuffix}`
export const partsFolder = (layout: LayoutOrJob, name: string, count: number, total: number) => `${layoutOf(layout).prefix}${name}.parts-${count}-${total}`

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

/**
 * Reads `<prefix><name>.parts-<N>-<total>/<file>` back; `part` is true when `<file>` is `<name>.part-<letters>`
 * (anything else in the folder, e.g. an upload's temporary file, is not a part).
 */
export function parsePartsFolder(layout: LayoutOrJob, key: string): { name: string; count: number; total: number; folder: string; part: boolean } | undefined {
  const { prefix } = layoutOf(layout)
  if (!key.startsWith(prefix)) return undefined
  const match = /^([^/]+)\.parts-(\d+)-(\d+)\/([^/]+)$/.exec(key.slice(prefix.length))
  if (!match) return undefined
  const [, name = '', count = '0', total = '0', file = ''] = match
  const part = file.startsWith(`${name}.part-`) && /^[a-z]{3,}$/.test(file.slice(name.length + 6))
  return { name, count: Number(count), total: Number(total), folder: `${prefix}${name}.parts-${count}-${total}`, part }
}
