/**
 * @module claims/claimsCollection
 * The plugin's one collection: short-lived claims that every CMS instance on the database sees (a receipt
 * spent, a sweep run this interval). Several instances behind a proxy share nothing else, so what must
 * happen once across them is decided here, by the unique index on `key`, and not in a process's memory.
 *
 * The `payload-` prefix marks it as internal, like the official plugins' own collections
 * (`payload-mcp-api-keys`): plugin-openapi leaves such collections out, the admin hides it, and no
 * request may read or write it (only the plugin, through the database adapter).
 */
import type { CollectionConfig } from 'payload'

export const CLAIMS_SLUG = 'payload-storage-host-claims'

const nobody = () => false

export const claimsCollection: CollectionConfig = {
  slug: CLAIMS_SLUG,
  access: { create: nobody, delete: nobody, read: nobody, update: nobody },
  admin: { hidden: true },
  fields: [
    { name: 'key', type: 'text', index: true, required: true, unique: true },
    { name: 'expiresAt', type: 'date', index: true, required: true },
  ],
  graphQL: false,
  lockDocuments: false,
}

/** The config with the claims collection, once. */
export function withClaimsCollection<T extends { collections?: CollectionConfig[] }>(config: T): T {
  const collections = config.collections ?? []
  if (collections.some((c) => c.slug === CLAIMS_SLUG)) return config
  return { ...config, collections: [...collections, claimsCollection] }
}
