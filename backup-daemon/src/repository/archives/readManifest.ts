/**
 * @module repository/archives/readManifest
 * A listed snapshot located in its storage, with its manifest read when it has one (the original
 * service's snapshots have none): what reading and verifying it need. Only listed snapshots are
 * located, so a name can never reach an object outside the job's catalog.
 */
import type { CatalogEntry } from './catalog.js'
import type { Manifest } from './manifest.js'
import type { Storage } from '../../storages/types.js'

export interface LocatedSnapshot {
  storage: Storage
  entry: CatalogEntry
  /** Absent for a snapshot without a manifest (`entry.view.checksummed` false). */
  manifest?: Manifest
}

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
