/**
 * @module sources/mongodb
 * The `mongodb` source: a mongodump-compatible archive (`mongorestore --archive[ --gzip]` restores
 * it) made with the Node driver alone, streamed as one entry `<name>/<database|all>.archive[.gz]` of
 * unknown size. Without an oplog the dump is not one point in time: each collection is read as it is
 * when its turn comes, like `mongodump` without `--oplog`.
 */
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createGzip } from 'node:zlib'
import { PassThrough } from 'node:stream'
import { MongoClient } from 'mongodb'
import { z } from 'zod'
import type { MongodbSourceConfig } from '../../config/types.js'
import { sourceName } from '../sqlite/index.js'
import type { Source, SourceContext, SourceEntry, SourceFactory } from '../types.js'
import { dumpPlan } from './dumpPlan.js'
import { writeArchive } from './writeArchive.js'

export const toolVersion = 'backup-daemon-0.1.0'

export function mongoEntryName(config: Pick<MongodbSourceConfig, 'name' | 'database' | 'gzip'>): string {
  const base = (config.database ?? 'all').replace(/[^A-Za-z0-9._-]/g, '_')
  return `${config.name}/${base}.archive${config.gzip ? '.gz' : ''}`
}

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
    const run = async () => {
      const client = new MongoClient(this.config.uri, { appName: 'backup-daemon' })
      const close = () => void client.close(true).catch(() => {})
      signal.addEventListener('abort', close, { once: true })
      try {
        await client.connect()
        const plan = await dumpPlan(client, {
          database: this.config.database,
          excludeCollections: this.config.excludeCollections,
          toolVersion,
          signal,
          log: (message) => this.context.log('warn', `source "${this.name}": ${message}`),
        })
        this.context.log('info', `source "${this.name}": dumping ${plan.collections.length} collection(s)`)
        const stages: NodeJS.ReadWriteStream[] = this.config.gzip ? [createGzip()] : []
        await pipeline([Readable.from(writeArchive(plan)), ...stages, out], { signal })
      } finally {
        signal.removeEventListener('abort', close)
        await client.close().catch(() => {})
      }
    }
    run().catch((err: unknown) => out.destroy(signal.aborted ? (signal.reason as Error) : (err as Error)))
    return out
  }
}

export const mongodbSource: SourceFactory<MongodbSourceConfig> = {
  type: 'mongodb',
  configSchema: z.strictObject({
    type: z.literal('mongodb'),
    name: sourceName,
    uri: z.string().regex(/^mongodb(\+srv)?:\/\//, 'expected a mongodb:// or mongodb+srv:// connection string'),
    database: z.string().min(1).optional(),
    excludeCollections: z.array(z.string().min(1)).optional(),
    gzip: z.boolean().optional(),
  }),
  secretKeys: ['uri'],
  pathKeys: [],
  create: (config, context) => new MongodbSource(config, context),
}
