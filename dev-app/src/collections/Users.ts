import type { CollectionConfig } from 'payload'

/** Admin users; the first one is created on first start (see src/start/seed.ts). */
export const Users: CollectionConfig = {
  slug: 'users',
  admin: { useAsTitle: 'email' },
  auth: { useAPIKey: true },
  fields: [{ name: 'name', type: 'text' }],
}
