/**
 * @module cleanup/sweepOrphanUploads
 * Client uploads write the object before the document exists; when the browser never creates the
 * document (tab closed, validation error), the object stays behind. Each client upload lives in its own
 * `{prefix}/{uuid}/` folder, which the document records (3.x: the uuid in `_objectKey`; 4.x, which has
 * no such field: the folder as `prefix`), so an orphan is a folder that no document references. Only
 * folders older than the receipt lifetime (6 h) are considered: until then the receipt may still be
 * turned into a document.
 */
import type { Payload, Where } from 'payload'

import { RECEIPT_LIFETIME_MS } from '../constants.js'
import { storageApiConfig } from '../context.js'
import type { ResolvedOptions, ResolvedStorage } from '../options/resolveOptions.js'
import { deleteObject, listDirectory, type StorageListEntry } from '../upstream/storageApi.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export interface SweepOptions {
  /** Only folders last changed before this age (ms) are removed. @default 6 h (receipt lifetime) */
  olderThanMs?: number
  /** The time to compare against. @default Date.now() */
  now?: number
  /** Only the collections of this zone. @default every zone */
  zone?: ResolvedStorage
}

/** Deletes orphaned client-upload folders of every storage collection; answers the deleted keys. */
export async function sweepOrphanUploads(payload: Payload, options: ResolvedOptions, sweep: SweepOptions = {}): Promise<string[]> {
  const cutoff = (sweep.now ?? Date.now()) - (sweep.olderThanMs ?? RECEIPT_LIFETIME_MS)
  const deleted: string[] = []
  for (const target of options.collections.values()) {
    if (!target.storage || (sweep.zone && target.storage !== sweep.zone)) continue
    const api = storageApiConfig(target.storage)
    const base = target.prefix.replace(/^\/+|\/+$/g, '')
    let entries: StorageListEntry[]
    try {
      entries = await listDirectory(api, base)
    } catch (err) {
      payload.logger.warn({ err: (err as Error).message, msg: 'storage-host: orphan sweep could not list the storage' })
      continue
    }
    for (const entry of entries) {
      if (!entry.IsDirectory || !UUID.test(entry.ObjectName)) continue
      const changed = Date.parse(entry.LastChanged.endsWith('Z') ? entry.LastChanged : `${entry.LastChanged}Z`)
      if (Number.isFinite(changed) && changed > cutoff) continue
      const folder = base ? `${base}/${entry.ObjectName}` : entry.ObjectName
      // 3.x records the folder's uuid in `_objectKey`, 4.x the whole folder in `prefix`: either one holds it.
      const where: Where = { or: [{ _objectKey: { equals: entry.ObjectName } }, { prefix: { equals: folder } }] }
      const referenced = await payload.count({ collection: target.slug, overrideAccess: true, where })
      if (referenced.totalDocs > 0) continue
      for (const file of await listDirectory(api, folder)) {
        if (file.IsDirectory) continue
        const key = `${folder}/${file.ObjectName}`
        await deleteObject(api, key)
        deleted.push(key)
      }
    }
  }
  if (deleted.length) payload.logger.info({ count: deleted.length, msg: 'storage-host: removed orphaned client uploads' })
  return deleted
}
