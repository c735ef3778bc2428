/**
 * @module sources/sqlite/schema
 * The config entry of the `sqlite` source and its type, apart from the source so the restore
 * declaration (`restore.ts`) uses the type without importing the source.
 */
import { z } from 'zod'
import { sourceName } from '../support/sourceName.js'

export const sqliteSourceSchema = z.strictObject({
  type: z.literal('sqlite'),
  name: sourceName,
  /** The database file (a consistent copy is taken with `VACUUM INTO`, never a file copy). */
  path: z.string().min(1),
})

/** One `type: sqlite` source entry after parsing. */
export type SqliteSourceConfig = z.output<typeof sqliteSourceSchema>
