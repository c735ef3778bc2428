/**
 * @module sources/postgresql/restore
 * How a `postgresql` source is restored (`DatabaseRestore`): its custom-format dump is fed to
 * `pg_restore` (`restorePostgres`), in one transaction, so a failure or a cancel leaves the database as
 * it was. `overwrite` adds `--clean --if-exists`. A `pg_restore` beside the source's `pgDump` is used.
 */
import { dirname, join } from 'node:path'
import { z } from 'zod'
import type { DatabaseRestore } from '../types.js'
import { splitPassword } from './connectionString.js'
import { restorePostgres } from './restorePostgres.js'
import type { PostgresqlSourceConfig } from './schema.js'

const postgresTarget = z.strictObject({
  type: z.literal('postgresql'),
  /** The database to restore into (it must exist); a URI / key-value string's password goes to PGPASSWORD. */
  database: z.string().min(1),
  host: z.string().min(1).optional(),
  port: z.int().min(1).max(65_535).optional(),
  user: z.string().min(1).optional(),
  password: z.string().optional(),
})

type PostgresTarget = z.output<typeof postgresTarget>

export const postgresqlRestore: DatabaseRestore<PostgresqlSourceConfig> = {
  async restore(entry, config, { overwrite, signal }) {
    const { database, host, port, user, password } = config
    const pgRestore = config.pgDump ? join(dirname(config.pgDump), 'pg_restore') : undefined
    await restorePostgres(entry, { database, host, port, user, password }, { clean: overwrite, signal, ...(pgRestore && { pgRestore }) })
    return `database ${splitPassword(database).label}`
  },
  into: {
    targets: { postgresql: postgresTarget },
    retarget(config, target) {
      const { database, host, port, user, password } = target as PostgresTarget
      return { ...config, database, host, port, user, password }
    },
    targetLabel: (target) => splitPassword((target as PostgresTarget).database).label,
    failureNote: ' (pg_restore runs in one transaction: the database was left as it was)',
  },
}
