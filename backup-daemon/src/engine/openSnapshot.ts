/**
 * @module engine/openSnapshot
 * Finds a listed snapshot (or one part of a split set) by the name the API uses and says how to
 * serve it: a redirect when the storage prefers one, else a stream. Only listed objects can be opened,
 * so no `{filename}` can reach anything else in a storage.
 */
import { Readable } from 'node:stream'
import { FullDownloadUnsupportedError, SnapshotNotFoundError } from './errors.js'
import { concatObjects, listCatalog } from './snapshotCatalog.js'
import type { SnapshotDownload } from './types.js'
import type { Storage } from '../storages/types.js'

const contentTypeOf = (name: string) =>
  name.endsWith('.age') ? 'application/octet-stream' : name.endsWith('.gz') ? 'application/gzip' : name.endsWith('.zst') ? 'application/zstd' : 'application/x-tar'

export async function openSnapshot(job: string, storages: Storage[], filename: string): Promise<SnapshotDownload> {
  for (const storage of storages) {
    const { snapshots } = await listCatalog(storage, job)
    for (const { view, dataKeys, dataSizes } of snapshots) {
      if (view.name === filename) {
        if (!view.isSplit) return single(storage, dataKeys[0]!, view.name, view.size)
        if (!storage.canStream) throw new FullDownloadUnsupportedError(filename)
        const size = view.size
        return { kind: 'stream', filename, size, contentType: contentTypeOf(filename), open: async () => Readable.from(concatObjects(storage, dataKeys)) }
      }
      // One part of a split set, by its file name (`<set>.part-aab`).
      const index = view.isSplit ? dataKeys.findIndex((key) => key.slice(key.lastIndexOf('/') + 1) === filename) : -1
      if (index >= 0) return single(storage, dataKeys[index]!, filename, dataSizes[index]!)
    }
  }
  throw new SnapshotNotFoundError(job, filename)
}

async function single(storage: Storage, key: string, filename: string, size: number): Promise<SnapshotDownload> {
  const url = await storage.downloadUrl?.(key)
  if (url) return { kind: 'redirect', url }
  return { kind: 'stream', filename, size, contentType: contentTypeOf(filename), open: () => storage.open(key) }
}
