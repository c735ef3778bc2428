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
import type { Source, SourceContext, SourceEntry, SourceFactory } from '../types.js'

export const toolVersion = 'backup-daemon-0.1.0'

export function mongoEntryName(config: Pick<MongodbSourceConfig, 'name' | 'database' | 'gzip'>): string {
  const base = (config.database ?? 'all').replace(/[^A-Za-z0-9._-]/g, '_')
  return `${config.name}/${base}.archive${config.gzip ? '.gz' : ''}`
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

const mongodbSourceSchema = z.strictObject({
  type: z.literal('mongodb'),
  name: sourceName,
  /** Connection string (`mongodb://` or `mongodb+srv://`), usually `env:MONGODB_URI`. */
  uri: z.string().regex(/^mongodb(\+srv)?:\/\//, 'expected a mongodb:// or mongodb+srv:// connection string'),
  /** One database; every database except admin/local/config when unset. */
  database: z.string().min(1).optional(),
  /** `db.collection` (or `collection` when `database` is set) names to leave out. */
  excludeCollections: z.array(z.string().min(1)).optional(),
  /** Gzip the archive (like `mongodump --archive --gzip`). @default false */
  gzip: z.boolean().optional(),
})

/** One `type: mongodb` source entry after parsing. */
export type MongodbSourceConfig = z.output<typeof mongodbSourceSchema>

export const mongodbSource: SourceFactory<MongodbSourceConfig> = {
  type: 'mongodb',
  configSchema: mongodbSourceSchema,
  secretKeys: ['uri'],
  pathKeys: [],
  create: (config, context) => new MongodbSource(config, context),
}
