/**
 * @module emulator/stream/CollectionStore
 * The library's collections (`/library/{id}/collections`): named groups a video points at through
 * its `collectionId`. In memory, saved with the videos by `persistState`.
 */
import { randomUUID } from 'node:crypto'

export interface CollectionRecord {
  guid: string
  name: string
}

export class CollectionStore {
  readonly #collections = new Map<string, CollectionRecord>()

  create(name: string): CollectionRecord {
    const collection = { guid: randomUUID(), name }
    this.#collections.set(collection.guid, collection)
    return collection
  }

  restore(records: CollectionRecord[]): void {
    for (const record of records) this.#collections.set(record.guid, { ...record })
  }

  get(guid: string): CollectionRecord | undefined {
    return this.#collections.get(guid)
  }

  list(): CollectionRecord[] {
    return [...this.#collections.values()]
  }

  delete(guid: string): boolean {
    return this.#collections.delete(guid)
  }
}
