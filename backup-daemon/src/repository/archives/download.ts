/**
 * @module repository/archives/download
 * Serves a listed snapshot (or one part of a split set) by the name the API uses: a redirect when the
 * storage prefers one, else a stream. Only listed objects can be opened, so no `{filename}` can reach
 * anything else in a storage. An object deleted between the listing and the download is a
 * `SnapshotNotFoundError` (404), not a server error.
 */
import { Readable } from 'node:stream'
import { FullDownloadUnsupportedError, SnapshotDamagedError, SnapshotNotFoundError } from '../../runs/errors.js'
import type { Storage } from '../../storages/types.js'
import type { SnapshotDownload } from '../types.js'
import { concatObjects, type CatalogEntry } from './catalog.js'

const contentTypeOf = (name: string) =>
  name.endsWith('.age') || name.endsWith('.enc') || /\.part-[a-z]+$/.test(name)
    ? 'application/octet-stream'
    : name.endsWith('.gz')
      ? 'application/gzip'
      : name.endsWith('.zst')
        ? 'application/zstd'
        : name.endsWith('.xz')
          ? 'application/x-xz'
          : name.endsWith('.zip')
            ? 'application/zip'
            : 'application/x-tar'

/** The download of `filename` when it is this listed snapshot or one of its parts; undefined when it is neither. */
export async function downloadOf(job: string, storage: Storage, entry: CatalogEntry, filename: string): Promise<SnapshotDownload | undefined> {
  const { view, dataKeys, dataSizes } = entry
  if (view.name === filename) {
    if (!view.isSplit) return single(job, storage, dataKeys[0]!, view.name, view.size)
    if (view.damaged) throw new SnapshotDamagedError(filename, view.damageReason ?? 'incomplete')
    if (!storage.canStream) throw new FullDownloadUnsupportedError(filename)
    return {
      kind: 'stream',
      filename,
      size: view.size,
      contentType: contentTypeOf(filename),
      // The first part is opened before the answer starts, so a set deleted since the listing is a 404.
      open: async () => {
        const first = await opened(job, storage, dataKeys[0]!, filename)
        const rest = dataKeys.slice(1)
        return Readable.from(
          (async function* () {
            for await (const chunk of first) yield chunk as Buffer
            yield* concatObjects(storage, rest)
          })(),
        )
      },
    }
  }
  // One part of a split set, by its file name (`<set>.part-aab`).
  const index = view.isSplit ? dataKeys.findIndex((key) => key.slice(key.lastIndexOf('/') + 1) === filename) : -1
  return index >= 0 ? single(job, storage, dataKeys[index]!, filename, dataSizes[index]!) : undefined
}

/** Opens an object; "no such object" becomes `SnapshotNotFoundError`. */
async function opened(job: string, storage: Storage, key: string, filename: string): Promise<Readable> {
  try {
    return await storage.open(key)
  } catch (err) {
    if (storage.isNotExist(err)) throw new SnapshotNotFoundError(job, filename)
    throw err
  }
}

async function single(job: string, storage: Storage, key: string, filename: string, size: number): Promise<SnapshotDownload> {
  const url = await storage.downloadUrl?.(key)
  if (url) return { kind: 'redirect', url }
  return { kind: 'stream', filename, size, contentType: contentTypeOf(filename), open: () => opened(job, storage, key, filename) }
}
