/**
 * @module sources/support/mirrorRemote
 * Brings a local folder in line with a remote listing (an S3 prefix, a storage zone folder), for the
 * `s3` and `host` sources: objects missing locally, or whose size differs or whose local copy is
 * older than the remote one, are downloaded by `workers` parallel downloads (each streamed to disk,
 * so memory holds a few chunks per download whatever the object sizes); in `incremental` mode
 * (`syncPath`) local files no longer listed (removed or now excluded) are deleted and empty folders
 * pruned. Each download goes to a `.bd-partial-*` file beside its target and is renamed when complete
 * (its mtime set to the remote one), so a failed or cancelled run never leaves a half object under
 * its name, and its partial file is removed.
 */
import { randomBytes } from 'node:crypto'
import { setMaxListeners } from 'node:events'
import { createWriteStream } from 'node:fs'
import { mkdir, readdir, rename, rm, rmdir, stat, utimes } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { formatBytes } from './countingStream.js'

export interface RemoteObject {
  /** Path relative to the mirrored prefix, `/`-separated. */
  path: string
  /** As listed; undefined when the listing does not say (a video's file: only its download tells). */
  size?: number
  mtime: Date
}

export interface MirrorOptions {
  /** Folder to fill (created when missing). */
  dir: string
  objects: RemoteObject[]
  download(object: RemoteObject, signal: AbortSignal): Promise<Readable>
  /** Skip up-to-date files and delete local files that are not in `objects`. */
  incremental: boolean
  workers: number
  signal: AbortSignal
  log(message: string): void
}

export interface MirrorResult {
  downloaded: number
  /** Bytes downloaded, as written to disk (not as listed). */
  bytes: number
  upToDate: number
  removed: number
}

const partialPrefix = '.bd-partial-'
/** A progress line after this many downloads. */
const progressEvery = 500

/**
 * A remote path that is safe as a relative local path (no `..`, no empty or `.` segments, no NUL). A backslash
 * is an ordinary byte of a Linux file name (the daemon's only platform): such a key is mirrored as it is.
 */
export function safeRelativePath(path: string): boolean {
  if (!path || path.includes('\0')) return false
  return path.split('/').every((part) => part !== '' && part !== '.' && part !== '..')
}

async function upToDate(file: string, object: RemoteObject): Promise<boolean> {
  const info = await stat(file).catch(() => undefined)
  // The original's rule: same size and a local copy at least as new as the remote object.
  // utimes goes through floating-point seconds: compare at millisecond precision, rounded.
  return Boolean(info?.isFile() && info.size === object.size && Math.round(info.mtimeMs) >= object.mtime.getTime())
}

/** Deletes local files not in `keep` (partial files of an earlier crash included), then empty folders. */
async function prune(dir: string, keep: Set<string>, relative = ''): Promise<number> {
  let removed = 0
  const entries = await readdir(join(dir, relative), { withFileTypes: true }).catch(() => [])
  for (const entry of entries) {
    const path = relative ? `${relative}/${entry.name}` : entry.name
    if (entry.isDirectory()) {
      removed += await prune(dir, keep, path)
      // Only succeeds when empty: folders of remaining files stay.
      await rmdir(join(dir, path)).catch(() => {})
    } else if (!keep.has(path)) {
      await rm(join(dir, path), { force: true })
      removed++
    }
  }
  return removed
}

export async function mirrorRemote(options: MirrorOptions): Promise<MirrorResult> {
  const { dir, signal, log } = options
  await mkdir(dir, { recursive: true })
  const result: MirrorResult = { downloaded: 0, bytes: 0, upToDate: 0, removed: 0 }
  if (options.incremental) {
    result.removed = await prune(dir, new Set(options.objects.map((o) => o.path)))
  }
  const queue: RemoteObject[] = []
  for (const object of options.objects) {
    if (options.incremental && (await upToDate(join(dir, object.path), object))) result.upToDate++
    else queue.push(object)
  }
  const total = queue.reduce((sum, o) => sum + (o.size ?? 0), 0)
  const unsized = queue.filter((o) => o.size === undefined).length
  const listed = unsized === 0 ? formatBytes(total) : unsized === queue.length ? 'sizes not listed' : `${formatBytes(total)} + ${unsized} not sized`
  log(`${queue.length} object(s) to download (${listed}), ${result.upToDate} up to date, ${result.removed} removed locally`)
  // One failure stops the others: no point fetching the rest of a run that fails.
  const stop = new AbortController()
  const linked = AbortSignal.any([signal, stop.signal])
  // Each download in flight listens on it (fetch, pipeline): more than Node's default 10 is expected.
  setMaxListeners(options.workers * 4 + 10, linked)
  let next = 0
  let failure: unknown
  const worker = async () => {
    while (next < queue.length && !linked.aborted) {
      const object = queue[next++]!
      try {
        // Awaited first: `result.bytes += await …` would read the sum before the await, losing the other workers' bytes.
        const bytes = await fetchOne(dir, object, options.download, linked)
        result.bytes += bytes
        result.downloaded++
        if (result.downloaded % progressEvery === 0) log(`downloaded ${result.downloaded} of ${queue.length} object(s), ${formatBytes(result.bytes)}`)
      } catch (err) {
        failure ??= err
        stop.abort(err)
      }
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.workers, queue.length)) }, worker))
  if (signal.aborted) throw signal.reason
  if (failure) throw failure
  log(`downloaded ${result.downloaded} object(s), ${formatBytes(result.bytes)}`)
  return result
}

/** Downloads one object into place; resolves with the bytes written. */
async function fetchOne(dir: string, object: RemoteObject, download: MirrorOptions['download'], signal: AbortSignal): Promise<number> {
  const target = join(dir, object.path)
  await mkdir(dirname(target), { recursive: true })
  const partial = join(dirname(target), `${partialPrefix}${randomBytes(6).toString('hex')}`)
  try {
    const body = await download(object, signal)
    const file = createWriteStream(partial, { flags: 'wx', mode: 0o644 })
    await pipeline(body, file, { signal })
    await utimes(partial, object.mtime, object.mtime)
    await rename(partial, target)
    return file.bytesWritten
  } catch (err) {
    await rm(partial, { force: true })
    throw err
  }
}
