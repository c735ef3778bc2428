/**
 * @module repository/archives/archiveRepository
 * The archive kind's `SnapshotRepository`: one job's archives in one `Storage`, in the job's folder of
 * it (`layout`, from the storage entry's `includeJobName`). Listing is one `list()` of the folder
 * (`catalog.ts`); a snapshot found by name has its manifest read, so `verify` and `openTar` check and
 * decode what the manifest says; every read goes through `readingStorage` (counted, cancellable).
 */
import type { Storage } from '../../storages/types.js'
import type { ReadOptions, SnapshotRepository, StoredSnapshot } from '../types.js'
import { deleteSnapshot, listCatalog, removeLeftovers, type CatalogEntry } from './catalog.js'
import { downloadOf } from './download.js'
import type { JobLayout } from './layout.js'
import type { Manifest } from './manifest.js'
import { describeReadError, openArchive } from './openArchive.js'
import { readingStorage } from './readingStorage.js'
import { readManifest, type LocatedSnapshot } from './readManifest.js'
import { checkedStream } from './checkedStream.js'
import { verifySnapshot } from './verifySnapshot.js'

/** An archive repository: what the archive writer needs beside the interface. */
export interface ArchiveRepository extends SnapshotRepository {
  readonly storage: Storage
  readonly layout: JobLayout
}

/**
 * A listed archive as a `StoredSnapshot`. Its manifest (when it has one) is read once, before the first
 * read or check: `find` reads it at once, so a storage whose manifest cannot be read answers there.
 */
export function storedArchive(storage: Storage, entry: CatalogEntry, job: string, manifest?: Manifest): StoredSnapshot {
  // Until the manifest is read, the listing's format (our names say what our manifests say) words read errors.
  let known: LocatedSnapshot = { storage, entry, ...(manifest && { manifest }) }
  let located: Promise<LocatedSnapshot> | undefined
  const locate = () =>
    (located ??=
      known.manifest || !entry.manifestKey
        ? Promise.resolve(known)
        : readManifest(storage, entry.manifestKey).then((read) => (known = { storage, entry, manifest: read })))
  const through = async (options: ReadOptions): Promise<LocatedSnapshot> => ({ ...(await locate()), storage: readingStorage(storage, options) })
  return {
    view: entry.view,
    size: entry.dataSizes.reduce((sum, size) => sum + size, 0),
    async download(filename) {
      const download = await downloadOf(job, storage, entry, filename)
      if (download?.kind !== 'stream' || !entry.manifestKey) return download
      // The manifest's digest of what is served (the whole, or one part): carried, and checked as the bytes go out.
      const { manifest: read } = await locate()
      const sha256 = filename === entry.view.name ? read?.sha256 : read?.parts.find((part) => part.key.endsWith(`/${filename}`))?.sha256
      if (!sha256) return download
      return { ...download, sha256, open: async () => checkedStream(await download.open(), sha256, filename) }
    },
    openTar: async ({ onBytes, ...options }) => openArchive(await through({ onBytes, ...options }), options),
    verify: async ({ onBytes, signal, ...keys }) => verifySnapshot(await through({ onBytes, signal }), signal, keys),
    explainReadError: (err) => describeReadError(known, err),
  }
}

export function archiveRepository(storage: Storage, layout: JobLayout): ArchiveRepository {
  const entries = async (): Promise<CatalogEntry[]> => (await listCatalog(storage, layout)).snapshots
  return {
    name: storage.name,
    type: storage.type,
    storage,
    layout,
    list: async () => (await entries()).map((entry) => storedArchive(storage, entry, layout.job)),
    async find(name) {
      const snapshots = await entries()
      const entry = name === undefined ? snapshots[0] : snapshots.find((s) => s.view.name === name)
      if (!entry) return undefined
      const manifest = entry.manifestKey ? await readManifest(storage, entry.manifestKey) : undefined
      return storedArchive(storage, entry, layout.job, manifest)
    },
    removeLeftovers: () => removeLeftovers(storage, layout),
    async forget(names) {
      const doomed = (await entries()).filter((entry) => names.includes(entry.view.name))
      for (const entry of doomed) await deleteSnapshot(storage, entry)
      return doomed.map((entry) => entry.view.name)
    },
  }
}
