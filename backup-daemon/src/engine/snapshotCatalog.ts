/**
 * @module engine/snapshotCatalog
 * Reads a job's committed snapshots from one storage (from a single listing, no object opened), removes
 * what unfinished runs left behind, and applies `retention.last`. Only `archive/layout.ts` knows names.
 */
import type { Readable } from 'node:stream'
import { createdAtOf, manifestKey, manifestSuffix, parsePartsFolder } from '../archive/layout.js'
import type { Storage, StoredObject } from '../storages/types.js'
import type { RetentionConfig } from '../config/types.js'
import { snapshotsToKeep } from './retentionPlan.js'
import type { SnapshotView } from './types.js'

export interface CatalogEntry {
  view: SnapshotView
  /** Keys of the data objects in order (one, or the parts). */
  dataKeys: string[]
  /** Byte sizes of `dataKeys`, same order. */
  dataSizes: number[]
  manifestKey: string
}

/** Groups a listing into committed snapshots (manifest present and data complete) and the rest. */
export function readListing(storage: Storage, job: string, objects: StoredObject[]): { snapshots: CatalogEntry[]; orphans: StoredObject[] } {
  const byKey = new Map(objects.filter((o) => !o.incomplete).map((o) => [o.key, o]))
  const sets = new Map<string, { count: number; total: number; folder: string; parts: StoredObject[] }>()
  for (const object of byKey.values()) {
    const parsed = parsePartsFolder(job, object.key)
    if (!parsed) continue
    const set = sets.get(parsed.name) ?? { ...parsed, parts: [] }
    set.parts.push(object)
    sets.set(parsed.name, set)
  }
  const snapshots: CatalogEntry[] = []
  const used = new Set<string>()
  for (const object of byKey.values()) {
    if (!object.key.endsWith(manifestSuffix) || object.key.slice(job.length + 1).includes('/')) continue
    const name = object.key.slice(job.length + 1, -manifestSuffix.length)
    const createdAt = (createdAtOf(name) ?? object.modified).toISOString()
    const base = { jobName: job, name, createdAt, storageType: storage.type, fullDownloadSupported: storage.canStream }
    const single = byKey.get(`${job}/${name}`)
    const set = sets.get(name)
    if (single) {
      used.add(object.key).add(single.key)
      snapshots.push({
        view: { ...base, id: `${storage.name}/${name}`, path: single.key, size: single.size, isSplit: false, partsCount: 1 },
        dataKeys: [single.key],
        dataSizes: [single.size],
        manifestKey: object.key,
      })
    } else if (set && set.parts.length === set.count && set.parts.reduce((sum, p) => sum + p.size, 0) === set.total) {
      // Suffixes grow from aaa to zzz then baaa: order by length first.
      const parts = [...set.parts].sort((a, b) => a.key.length - b.key.length || (a.key < b.key ? -1 : 1))
      used.add(object.key)
      for (const part of parts) used.add(part.key)
      snapshots.push({
        view: { ...base, id: `${storage.name}/${name}`, path: set.folder, size: set.total, isSplit: true, partsCount: set.count },
        dataKeys: parts.map((p) => p.key),
        dataSizes: parts.map((p) => p.size),
        manifestKey: object.key,
      })
    }
  }
  snapshots.sort((a, b) => b.view.createdAt.localeCompare(a.view.createdAt) || b.view.name.localeCompare(a.view.name))
  return { snapshots, orphans: objects.filter((o) => !used.has(o.key)) }
}

export async function listCatalog(storage: Storage, job: string): Promise<{ snapshots: CatalogEntry[]; orphans: StoredObject[] }> {
  return readListing(storage, job, await storage.list(`${job}/`))
}

/** Deletes a snapshot, manifest first so an interruption leaves orphans (cleaned later), never a half listing. */
export async function deleteSnapshot(storage: Storage, entry: CatalogEntry): Promise<void> {
  await storage.delete(entry.manifestKey)
  for (const key of entry.dataKeys) await storage.delete(key)
}

/** Removes temporary objects and data without a manifest. Only call while no run of `job` writes. */
export async function removeLeftovers(storage: Storage, job: string): Promise<number> {
  const { orphans } = await listCatalog(storage, job)
  for (const orphan of orphans) await storage.delete(orphan.key)
  return orphans.length
}

/**
 * Applies a retention policy (a number is `last: N`) to one storage, a split set counting as one;
 * returns the names deleted.
 */
export async function applyRetention(storage: Storage, job: string, policy: number | RetentionConfig): Promise<string[]> {
  const { snapshots } = await listCatalog(storage, job)
  const keep = snapshotsToKeep(
    snapshots.map((entry) => ({ name: entry.view.name, createdAt: new Date(entry.view.createdAt) })),
    typeof policy === 'number' ? { last: policy } : policy,
  )
  const doomed = snapshots.filter((entry) => !keep.has(entry.view.name))
  for (const entry of doomed) await deleteSnapshot(storage, entry)
  return doomed.map((entry) => entry.view.name)
}

/** Streams objects one after the other (a split set's full download). */
export async function* concatObjects(storage: Storage, keys: string[]): AsyncGenerator<Buffer> {
  for (const key of keys) {
    const stream: Readable = await storage.open(key)
    for await (const chunk of stream) yield chunk as Buffer
  }
}

export { manifestKey }
