/**
 * @module sources/mongodb/schema
 * The config entry of the `mongodb` source (the original service's keys) and the type derived from it,
 * apart from the source so the dump's modules can use the type without importing the source.
 */
import { z } from 'zod'
import { sourceName } from '../support/sourceName.js'

/**
 * The mongodump flags `extraParams` may name, and what each does here (the dump runs on the driver,
 * there is no mongodump to pass unknown flags to; an unknown flag is a config error, not ignored).
 */
export const supportedExtraParams: Record<string, string> = {
  gzip: 'gzip the archive (as `gzip: true`)',
  collection: 'dump only this collection (needs `database`)',
  excludeCollectionsWithPrefix: 'leave out collections whose name starts with this (comma-separated for several)',
  readPreference: 'read from this member: primary, primaryPreferred, secondary, secondaryPreferred, nearest',
  forceTableScan: 'read in natural order without an index (always the case here)',
  numParallelCollections: 'accepted for compatibility: collections are dumped one after another; the archive is the same',
  authenticationMechanism: 'the authentication mechanism (e.g. SCRAM-SHA-256)',
  ssl: 'connect with TLS',
  tls: 'connect with TLS',
  sslCAFile: 'CA file for TLS',
  tlsCAFile: 'CA file for TLS',
  tlsInsecure: 'TLS without certificate checks',
}

export const mongodbSourceSchema = z
  .strictObject({
    type: z.literal('mongodb'),
    name: sourceName,
    /** Connection string (`mongodb://` or `mongodb+srv://`), usually `env:MONGODB_URI`; wins over host/port/credentials. */
    uri: z
      .string()
      .regex(/^mongodb(\+srv)?:\/\//, 'expected a mongodb:// or mongodb+srv:// connection string')
      .optional(),
    /** Without `uri`: the server. @default "127.0.0.1" */
    host: z.string().min(1).optional(),
    /** @default 27017 */
    port: z.int().min(1).max(65535).optional(),
    username: z.string().min(1).optional(),
    /** Given to the driver, never on a command line or in a log. */
    password: z.string().optional(),
    /** The database holding the user (`--authenticationDatabase`, typically `admin`). */
    authDatabase: z.string().min(1).optional(),
    /** One database; every database except admin/local/config when unset. */
    database: z.string().min(1).optional(),
    /** Every database except admin/local/config (the original's flag; the same as leaving `database` out). */
    allDatabases: z.boolean().optional(),
    /**
     * The original's `oplog`: a dump consistent at one point in time. Here every collection is read in one
     * snapshot session (MongoDB 5.0+, replica set or sharded cluster, like `mongodump --oplog`), so the
     * archive restores without an oplog replay. The dump must finish within the server's
     * `minSnapshotHistoryWindowInSeconds` (300 s by default).
     */
    oplog: z.boolean().optional(),
    /** `db.collection` (or `collection` when `database` is set) names to leave out. */
    excludeCollections: z.array(z.string().min(1)).optional(),
    /** The original's name of `excludeCollections`. */
    excludeTables: z.array(z.string().min(1)).optional(),
    /** Gzip the archive (like `mongodump --archive --gzip`). @default false */
    gzip: z.boolean().optional(),
    /** mongodump flags (key without `--`, `''` for a bare flag): the ones in `supportedExtraParams`. */
    extraParams: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]).transform(String)).optional(),
  })
  .superRefine((config, ctx) => {
    if (!config.uri && !config.database && !config.allDatabases)
      ctx.addIssue({ code: 'custom', path: ['database'], message: 'set uri, database or allDatabases: true (which databases to dump)' })
    if (config.database && config.allDatabases)
      ctx.addIssue({ code: 'custom', path: ['allDatabases'], message: 'set database or allDatabases: true, not both' })
    for (const key of Object.keys(config.extraParams ?? {}))
      if (!(key in supportedExtraParams))
        ctx.addIssue({
          code: 'custom',
          path: ['extraParams', key],
          message: `unsupported mongodump flag "${key}" (the dump runs on the driver); supported: ${Object.keys(supportedExtraParams).join(', ')}`,
        })
    if (config.extraParams?.collection && !config.database)
      ctx.addIssue({ code: 'custom', path: ['extraParams', 'collection'], message: 'collection needs database' })
  })

/** One `type: mongodb` source entry after parsing. */
export type MongodbSourceConfig = z.output<typeof mongodbSourceSchema>
