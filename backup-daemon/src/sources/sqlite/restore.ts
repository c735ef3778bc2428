/**
 * @module sources/sqlite/restore
 * How a `sqlite` source is restored (`DatabaseRestore`): its entry becomes the database file again
 * (`restoreSqlite`: checked, then renamed into place), at the source's `path` or at a `restore.databases`
 * entry of `type: sqlite`, which names another file.
 */
import { z } from 'zod'
import type { DatabaseRestore } from '../types.js'
import { restoreSqlite } from './restoreSqlite.js'
import type { SqliteSourceConfig } from './schema.js'

const sqliteTarget = z.strictObject({
  type: z.literal('sqlite'),
  /** The database file written (an existing file is replaced only with `overwrite`). */
  path: z
    .string()
    .min(1)
    .refine((p) => p.startsWith('/'), 'an absolute path'),
})

type SqliteTarget = z.output<typeof sqliteTarget>

export const sqliteRestore: DatabaseRestore<SqliteSourceConfig> = {
  async restore(entry, config, { overwrite, signal }) {
    await restoreSqlite(entry, config.path, { overwrite, signal })
    return config.path
  },
  into: {
    targets: { sqlite: sqliteTarget },
    retarget: (config, target) => ({ ...config, path: (target as SqliteTarget).path }),
    targetLabel: (target) => (target as SqliteTarget).path,
  },
}
