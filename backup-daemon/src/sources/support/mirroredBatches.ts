/**
 * @module sources/support/mirroredBatches
 * The entry batches of a remote source (`s3`, `host`): the listing is filtered (unsafe paths skipped with
 * a warning, `excludes` applied), mirrored into a local folder (`mirrorRemote`), and that folder is
 * archived like a `local` source as `<name>/<relative path>`. Without `syncPath` the folder is a
 * temporary one, removed once the archive moved past the source, or on failure or cancel; with
 * `syncPath` it is kept between runs so only new or changed objects are fetched next time, and the
 * source can be handed over as that folder (`mirroredTree`: a restic repository backs it up as a path).
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Readable } from 'node:stream'
import { LocalSource } from '../local/index.js'
import type { SourceContext, SourceEntry, SourceTree } from '../types.js'
import { formatBytes } from './countingStream.js'
import { excludeMatcher } from './excludeMatcher.js'
import { mirrorRemote, safeRelativePath, type RemoteObject } from './mirrorRemote.js'

export interface MirroredSourceSpec {
  name: string
  type: string
  context: SourceContext
  /** What is read, for log lines (never with credentials): `bucket "b", prefix "p/"`. */
  what: string
  syncPath?: string
  excludes: string[]
  workers: number
  /** Every object under the source's path, with paths relative to it. */
  list(signal: AbortSignal): AsyncIterable<RemoteObject>
  download(object: RemoteObject, signal: AbortSignal): Promise<Readable>
}

export async function* mirroredBatches(spec: MirroredSourceSpec, signal: AbortSignal): AsyncIterable<SourceEntry[]> {
  signal.throwIfAborted()
  const dir = spec.syncPath ?? (await mkdtemp(join(tmpdir(), `backup-daemon-${spec.type}-`)))
  try {
    await syncMirror(spec, dir, signal)
    yield* new LocalSource(spec.name, dir, [], spec.context).batches(signal)
  } finally {
    if (spec.syncPath === undefined) await rm(dir, { recursive: true, force: true })
  }
}

/**
 * The source as its mirror folder (`Source.tree`), brought up to date first: only with `syncPath` (a
 * temporary mirror would be downloaded whole every run; without one the entries are read instead).
 */
export async function mirroredTree(spec: MirroredSourceSpec, signal: AbortSignal): Promise<SourceTree | undefined> {
  if (spec.syncPath === undefined) return undefined
  signal.throwIfAborted()
  await syncMirror(spec, spec.syncPath, signal)
  return { path: resolve(spec.syncPath) }
}

/** Lists the remote (unsafe paths skipped, excludes applied) and mirrors it into `dir`. */
async function syncMirror(spec: MirroredSourceSpec, dir: string, signal: AbortSignal): Promise<void> {
  const log = (level: 'info' | 'warn', message: string) => spec.context.log(level, `source "${spec.name}": ${message}`)
  const excluded = excludeMatcher(spec.excludes)
  const objects: RemoteObject[] = []
  let excludedCount = 0
  let bytes = 0
  for await (const object of spec.list(signal)) {
    if (!safeRelativePath(object.path)) {
      log('warn', `skipped an object whose path cannot be a file name: ${JSON.stringify(object.path.slice(0, 200))}`)
      continue
    }
    if (excluded(object.path)) {
      excludedCount++
      continue
    }
    objects.push(object)
    bytes += object.size ?? 0
  }
  log('info', `listed ${objects.length} object(s) (${formatBytes(bytes)}) in ${spec.what}${excludedCount ? `, ${excludedCount} excluded` : ''}`)
  await mirrorRemote({
    dir,
    objects,
    download: spec.download,
    incremental: spec.syncPath !== undefined,
    workers: spec.workers,
    signal,
    log: (message) => log('info', message),
  })
}
