/**
 * @module sources/postgresql/schema
 * The config entry of the `postgresql` source and the type derived from it, apart from the source so
 * `pgDumpArgs` can use the type without importing the source.
 */
import { z } from 'zod'
import { sourceName } from '../support/sourceName.js'

export const postgresqlSourceSchema = z.strictObject({
  type: z.literal('postgresql'),
  name: sourceName,
  /** A database name, or a URI / key-value connection string (its password goes to PGPASSWORD, never argv). */
  database: z.string().min(1),
  /** Host name or unix socket folder. @default libpq's default (PGHOST or the local socket) */
  host: z.string().min(1).optional(),
  /** @default 5432 */
  port: z.int().min(1).max(65_535).optional(),
  user: z.string().min(1).optional(),
  /** Passed to pg_dump as PGPASSWORD in its environment, never on the command line. */
  password: z.string().optional(),
  /** Table patterns for `--exclude-table`. */
  excludeTables: z.array(z.string().min(1)).optional(),
  /** Extra pg_dump arguments, appended as given (e.g. `["--no-owner"]`). */
  params: z.array(z.string()).optional(),
  /**
   * pg_dump's own compression of the custom-format dump: `none` (`--compress=0`: the tables' rows as they are, which a restic
   * repository deduplicates run to run and an archive's compressor compresses on every core), `pg_dump` (its zlib, single-threaded:
   * a change inside a table reshuffles every compressed byte after it), or `auto`: `none` when the job writes to a restic repository
   * or compresses its archives, `pg_dump` when its only copies are plain `tar` archives. pg_restore reads every form.
   * @default "auto"
   */
  dumpCompression: z.enum(['auto', 'none', 'pg_dump']).optional(),
  /** The pg_dump binary. @default "pg_dump" (found on PATH) */
  pgDump: z.string().min(1).optional(),
})

/** One `type: postgresql` source entry after parsing. */
export type PostgresqlSourceConfig = z.output<typeof postgresqlSourceSchema>
