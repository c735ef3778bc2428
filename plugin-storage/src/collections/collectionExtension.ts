/**
 * @module collections/collectionExtension
 * The shape of one concern of the plugin on one collection, and the helpers the concerns share. The
 * plugin composes the concerns in one `map` over the collections (plugin.ts), after the upload wiring
 * (`wiring/withHostAdapter.ts`) put its own fields and hooks.
 */
import type { CollectionConfig } from 'payload'

import type { ResolvedCollection } from '../options/resolveOptions.js'

/** What a concern receives about one targeted collection. */
export interface CollectionInput {
  /** The collection as extended so far (the upload wiring's fields and hooks included). */
  collection: CollectionConfig
  /** The same collection as the app declared it, before any plugin step. */
  original: CollectionConfig
  /** The plugin's resolved target for this collection. */
  target: ResolvedCollection
}

/** One concern: the collection extended, never changed in place. */
export type CollectionExtension = (input: CollectionInput) => CollectionConfig

/**
 * `item` inserted right after the last element that `original` already held. The upload wiring only
 * appends to a collection's fields and hook lists, so this puts the item after the app's and before the
 * wiring's.
 */
export function afterOriginal<T>(list: readonly T[], original: readonly T[] | undefined, item: T): T[] {
  const mine = new Set(original ?? [])
  let at = 0
  list.forEach((element, i) => {
    if (mine.has(element)) at = i + 1
  })
  return [...list.slice(0, at), item, ...list.slice(at)]
}
