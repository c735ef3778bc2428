/**
 * @module sources/mongodb
 * The `mongodb` source: a mongodump-compatible archive (`mongorestore --archive[ --gzip]` restores
 * it) made with the Node driver alone, streamed as one entry `<name>/<database|all>.archive[.gz]` of
 * unknown size. Without an oplog the dump is not one point in time: each collection is read as it is
 * when its turn comes, like `mongodump` without `--oplog`.
 */
import { PassThrough, type Readable } from 'node:stream'
import { z } from 'zod'
import { sourceName } from '../support/sourceName.js'
import { dumpSettings, supportedExtraParams } from './dumpSettings.js'
import type { Source, SourceContext, SourceEntry, SourceFactory } from '../types.js'

export const toolVersion = 'backup-daemon-0.1.0'

export function mongoEntryName(config: Pick<MongodbSourceConfig, 'name' | 'database' | 'gzip' | 'allDatabases' | 'extraParams'>): string {
  const { database, gzip } = dumpSettings({ type: 'mongodb', ...config })
  const base = (database ?? 'all').replace(/[^A-Za-z0-9._-]/g, '_')
  return `${config.name}/${base}.archive${gzip ? '.gz' : ''}`
}

/** The driver is loaded on the first dump (`streamMongoArchive`), not when the daemon starts. */
export class MongodbSource implements Source {
  readonly type = 'mongodb'
  readonly name: string

  constructor(
    private readonly config: MongodbSourceConfig,
    private readonly context: SourceContext,
  ) {
    this.name = config.name
  }

  async *entries(signal: AbortSignal): AsyncIterable<SourceEntry> {
    signal.throwIfAborted()
    const mtime = new Date()
    yield { name: this.name, type: 'directory', mode: 0o755, mtime }
    yield { name: mongoEntryName(this.config), type: 'file', mode: 0o600, mtime, open: (s) => this.open(s) }
  }

  private open(signal: AbortSignal): Readable {
    const out = new PassThrough({ highWaterMark: 1 << 20 })
    const log = (level: 'info' | 'warn', message: string) => this.context.log(level, `source "${this.name}": ${message}`)
    import('./streamMongoArchive.js')
      .then(({ streamMongoArchive }) => streamMongoArchive(this.config, out, { toolVersion, signal, log }))
      .catch((err: unknown) => out.destroy(signal.aborted ? (signal.reason as Error) : (err as Error)))
    return out
  }
}

const mongodbSourceSchema = z
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

export const mongodbSource: SourceFactory<MongodbSourceConfig> = {
  type: 'mongodb',
  configSchema: mongodbSourceSchema,
  secretKeys: ['uri', 'password'],
  pathKeys: [],
  create: (config, context) => new MongodbSource(config, context),
}
