/**
 * @module snapshot/locateSnapshots
 * Finds a job's listed snapshot (by name, or the newest) on each of its storages and reads its
 * manifest when it has one (the original service's snapshots have none), for `verify` and `restore`.
 * Only listed snapshots are found: a name can never reach an object outside the job's catalog.
 */
import type { Manifest } from './manifest.js'
import { listCatalog, type CatalogEntry } from './catalog.js'
import type { Storage } from '../../storages/types.js'

export interface LocatedSnapshot {
  storage: Storage
  entry: CatalogEntry
  /** Absent for a snapshot without a manifest (`entry.view.checksummed` false). */
  manifest?: Manifest
}

export type Location = LocatedSnapshot | { storage: Storage; missing: string }

/** Reads a (small) object whole. */
async function readObject(storage: Storage, key: string): Promise<Buffer> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of await storage.open(key)) {
    size += (chunk as Buffer).length
    if (size > 16 * 1048576) throw new Error(`${key} is larger than a manifest can be`)
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks)
}

export async function readManifest(storage: Storage, key: string): Promise<Manifest> {
  const text = (await readObject(storage, key)).toString('utf8')
  let manifest: Manifest
  try {
    manifest = JSON.parse(text) as Manifest
  } catch {
    throw new Error(`storage "${storage.name}": ${key} is not valid JSON`)
  }
  if (manifest.version !== 1 || !Array.isArray(manifest.parts)) throw new Error(`storage "${storage.name}": ${key} is not a version 1 manifest`)
  return manifest
}

/** One result per storage: the snapshot `name` (newest when undefined) with its manifest, or why it is missing. */
export async function locateSnapshots(job: string, storages: Storage[], name?: string): Promise<Location[]> {
  return Promise.all(
    storages.map(async (storage): Promise<Location> => {
      try {
        const { snapshots } = await listCatalog(storage, job)
        const entry = name === undefined ? snapshots[0] : snapshots.find((s) => s.view.name === name)
        if (!entry) return { storage, missing: name === undefined ? 'no snapshot' : `no snapshot named ${name}` }
        if (!entry.manifestKey) return { storage, entry }
        return { storage, entry, manifest: await readManifest(storage, entry.manifestKey) }
      } catch (err) {
        // One unreachable storage must not hide the others' answers (restore can use another copy).
        return { storage, missing: `cannot read the catalog: ${(err as Error).message}` }
      }
    }),
  )
}
