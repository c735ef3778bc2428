/**
 * @module repository/archives/catalog
 * Reads a job's snapshots from one storage (from a single listing, no object opened) and removes what
 * unfinished runs of ours left behind. Only `layout.ts` knows names.
 *
 * Listed: our snapshots whose manifest exists (the commit point) and the original service's snapshots
 * (its name form, no manifest: `checksummed: false`). A split set whose parts do not match its folder
 * name (a part missing, sizes not adding up) is listed with `damaged: true` and a reason, never hidden
 * and never deleted as a leftover. Leftovers (`orphans`) are only objects of ours: temporary objects
 * and data in our name form without a manifest. Anything else in the folder is left alone.
 */
import type { Readable } from 'node:stream'
import { jobLayout, manifestSuffix, parsePartsFolder, parseSnapshotName, type JobLayout, type ParsedName, type SnapshotEncryption } from './layout.js'
import type { Compression } from '../../config/types.js'
import type { Storage, StoredObject } from '../../storages/types.js'
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

/** One listing of the job's folder (`layout`; a job name is its default layout, `J/`). */
export async function listCatalog(storage: Storage, layout: JobLayout | string): Promise<Catalog> {
  const place = typeof layout === 'string' ? jobLayout(layout) : layout
  return readListing(storage, place, await storage.list(place.prefix || ''))
}

/** Deletes a snapshot, manifest first so an interruption leaves orphans (cleaned later), never a half listing. */
export async function deleteSnapshot(storage: Storage, entry: CatalogEntry): Promise<void> {
  if (entry.manifestKey) await storage.delete(entry.manifestKey)
  for (const key of entry.dataKeys) await storage.delete(key)
}

/** Removes our temporary objects and our data without a manifest. Only call while no run of `job` writes. */
export async function removeLeftovers(storage: Storage, layout: JobLayout | string): Promise<number> {
  const { orphans } = await listCatalog(storage, layout)
  for (const orphan of orphans) await storage.delete(orphan.key)
  return orphans.length
}

/** Streams objects one after the other (a split set's full download). */
export async function* concatObjects(storage: Storage, keys: string[]): AsyncGenerator<Buffer> {
  for (const key of keys) {
    const stream: Readable = await storage.open(key)
    for await (const chunk of stream) yield chunk as Buffer
  }
}
