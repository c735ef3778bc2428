/**
 * @module snapshot/snapshotCatalog
 * Reads a job's snapshots from one storage (from a single listing, no object opened), removes what
 * unfinished runs of ours left behind, and applies retention. Only `archive/layout.ts` knows names.
 *
 * Listed: our snapshots whose manifest exists (the commit point) and the original service's snapshots
 * (its name form, no manifest: `checksummed: false`). A split set whose parts do not match its folder
 * name (a part missing, sizes not adding up) is listed with `damaged: true` and a reason, never hidden
 * and never deleted as a leftover. Leftovers (`orphans`) are only objects of ours: temporary objects
 * and data in our name form without a manifest. Anything else in the folder is left alone.
 */
import type { Readable } from 'node:stream'
import { layoutIn } from '../../archive/jobStorage.js'
import {
  manifestKey,
  manifestSuffix,
  parsePartsFolder,
  parseSnapshotName,
  type JobLayout,
  type ParsedName,
  type SnapshotEncryption,
} from './layout.js'
import type { Compression, JobConfig, RetentionConfig } from '../../config/types.js'
import type { Storage, StoredObject } from '../../storages/types.js'
import { snapshotsToKeep } from '../retentionPlan.js'
import type { SnapshotView } from '../SnapshotView.js'

export interface CatalogEntry {
  view: SnapshotView
  /** Keys of the data objects in order (one, or the parts present). */
  dataKeys: string[]
  /** Byte sizes of `dataKeys`, same order. */
  dataSizes: number[]
  /** Absent for a snapshot without a manifest (the original service's). */
  manifestKey?: string
  /** From the name (our manifests say the same). */
  compression: Compression
  encryption?: SnapshotEncryption
}

export interface Catalog {
  snapshots: CatalogEntry[]
  orphans: StoredObject[]
}

interface PartSet {
  count: number
  total: number
  folder: string
  parts: StoredObject[]
  /** Objects in the folder that are not parts (kept out of the set, deleted with it). */
  others: StoredObject[]
}

/** Suffixes grow from aaa to zzz then baaa: order by length first. */
const byPartOrder = (a: StoredObject, b: StoredObject) => a.key.length - b.key.length || (a.key < b.key ? -1 : 1)

/** The reason a split set is damaged, or undefined when its parts match its folder name. */
function damageOf(set: PartSet): string | undefined {
  const size = set.parts.reduce((sum, p) => sum + p.size, 0)
  if (set.parts.length < set.count) return `${set.count - set.parts.length} of ${set.count} part(s) missing`
  if (set.parts.length > set.count) return `${set.parts.length} parts found, the set declares ${set.count}`
  if (size !== set.total) return `parts hold ${size} bytes, the set declares ${set.total} (truncated or altered)`
  return undefined
}

/** Groups a listing into snapshots and our own leftovers. `layout` defaults to `J/`. */
export function readListing(storage: Storage, layout: JobLayout | string, objects: StoredObject[]): Catalog {
  const place: JobLayout = typeof layout === 'string' ? { job: layout, prefix: `${layout}/` } : layout
  const { job, prefix } = place
  const orphans: StoredObject[] = []
  const singles = new Map<string, StoredObject>()
  const manifests = new Map<string, StoredObject>()
  const sets = new Map<string, PartSet>()
  for (const object of objects) {
    // Temporary objects are ours (always below `J/`), whatever the layout.
    if (object.incomplete) {
      if (object.key.startsWith(`${job}/`)) orphans.push(object)
      continue
    }
    if (!object.key.startsWith(prefix)) continue
    const rest = object.key.slice(prefix.length)
    if (!rest.startsWith(`${job}-`)) continue
    const inFolder = parsePartsFolder(place, object.key)
    if (inFolder) {
      const set = sets.get(inFolder.name) ?? { count: inFolder.count, total: inFolder.total, folder: inFolder.folder, parts: [], others: [] }
      if (set.folder !== inFolder.folder) continue
      ;(inFolder.part ? set.parts : set.others).push(object)
      sets.set(inFolder.name, set)
    } else if (!rest.includes('/')) {
      if (rest.endsWith(manifestSuffix)) manifests.set(rest.slice(0, -manifestSuffix.length), object)
      else singles.set(rest, object)
    }
  }

  const snapshots: CatalogEntry[] = []
  const names = new Set([...manifests.keys(), ...singles.keys(), ...sets.keys()])
  for (const name of names) {
    const parsed = parseSnapshotName(job, name)
    const manifest = manifests.get(name)
    const single = singles.get(name)
    const set = sets.get(name)
    const leftovers = () => {
      for (const object of [manifest, single, ...(set?.parts ?? []), ...(set?.others ?? [])]) if (object) orphans.push(object)
    }
    if (!parsed) {
      // A manifest or data under a name we cannot read: ours only if it is a manifest (never the original's).
      if (manifest) leftovers()
      continue
    }
    if (!manifest && parsed.form === 'daemon') {
      leftovers()
      continue
    }
    const entry = toEntry(storage, place, name, parsed, manifest, single, set)
    if (entry) snapshots.push(entry)
    else if (manifest) leftovers()
  }
  snapshots.sort((a, b) => b.view.createdAt.localeCompare(a.view.createdAt) || b.view.name.localeCompare(a.view.name))
  return { snapshots, orphans }
}

function toEntry(
  storage: Storage,
  layout: JobLayout,
  name: string,
  parsed: ParsedName,
  manifest: StoredObject | undefined,
  single: StoredObject | undefined,
  set: PartSet | undefined,
): CatalogEntry | undefined {
  const base = {
    id: name,
    name,
    jobName: layout.job,
    createdAt: parsed.createdAt.toISOString(),
    storageType: storage.type,
    fullDownloadSupported: storage.canStream,
    checksummed: manifest !== undefined,
    storage: storage.name,
    storages: [storage.name],
  }
  const format = {
    compression: parsed.compression,
    ...(parsed.encryption && { encryption: parsed.encryption }),
    ...(manifest && { manifestKey: manifest.key }),
  }
  if (single) {
    return {
      view: { ...base, path: single.key, size: single.size, isSplit: false, partsCount: 1, damaged: false },
      dataKeys: [single.key],
      dataSizes: [single.size],
      ...format,
    }
  }
  if (set) {
    const parts = [...set.parts].sort(byPartOrder)
    const damageReason = damageOf(set)
    return {
      view: {
        ...base,
        path: set.folder,
        size: set.total,
        isSplit: true,
        partsCount: set.count,
        damaged: damageReason !== undefined,
        ...(damageReason && { damageReason, fullDownloadSupported: false }),
      },
      dataKeys: parts.map((p) => p.key),
      dataSizes: parts.map((p) => p.size),
      ...format,
    }
  }
  return undefined
}

export async function listCatalog(storage: Storage, job: string): Promise<Catalog> {
  const layout = layoutIn(storage, job)
  return readListing(storage, layout, await storage.list(layout.prefix || ''))
}

/** One listed snapshot with the storage its listed copy is on. */
export interface JobSnapshot {
  storage: Storage
  entry: CatalogEntry
}

/**
 * The union of the job's snapshots over `storages`, deduplicated by name, newest first: the copy on
 * `defaultStorage` (else the first storage holding it) is the one listed; `view.storages` names every
 * storage with a copy.
 */
export async function listJobSnapshots(job: string, storages: Storage[], defaultStorage?: string): Promise<JobSnapshot[]> {
  const ordered = [...storages.filter((s) => s.name === defaultStorage), ...storages.filter((s) => s.name !== defaultStorage)]
  const catalogs = await Promise.all(ordered.map((storage) => listCatalog(storage, job)))
  const byName = new Map<string, JobSnapshot>()
  for (const [i, catalog] of catalogs.entries()) {
    const storage = ordered[i]!
    for (const entry of catalog.snapshots) {
      const seen = byName.get(entry.view.name)
      if (seen) seen.entry.view.storages.push(storage.name)
      else byName.set(entry.view.name, { storage, entry })
    }
  }
  return [...byName.values()].sort((a, b) => b.entry.view.createdAt.localeCompare(a.entry.view.createdAt) || b.entry.view.name.localeCompare(a.entry.view.name))
}

/** Deletes a snapshot, manifest first so an interruption leaves orphans (cleaned later), never a half listing. */
export async function deleteSnapshot(storage: Storage, entry: CatalogEntry): Promise<void> {
  if (entry.manifestKey) await storage.delete(entry.manifestKey)
  for (const key of entry.dataKeys) await storage.delete(key)
}

/** Removes our temporary objects and our data without a manifest. Only call while no run of `job` writes. */
export async function removeLeftovers(storage: Storage, job: string): Promise<number> {
  const { orphans } = await listCatalog(storage, job)
  for (const orphan of orphans) await storage.delete(orphan.key)
  return orphans.length
}

/**
 * Applies a retention policy (a number is `last: N`) to one storage, over our snapshots and the original
 * service's alike, a split set counting as one; returns the names deleted.
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

/** `jobs[].defaultStorage` (a storage name), when the config has one. */
export const defaultStorageOf = (job: JobConfig): string | undefined => (job as JobConfig & { defaultStorage?: string }).defaultStorage
