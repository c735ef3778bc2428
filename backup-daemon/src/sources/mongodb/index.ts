/**
 * @module sources/mongodb
 * The `mongodb` source: a mongodump-compatible archive (`mongorestore --archive[ --gzip]` restores
 * it) made with the Node driver alone, streamed as one entry `<name>/<database|all>.archive[.gz]` of
 * unknown size. Without an oplog the dump is not one point in time: each collection is read as it is
 * when its turn comes, like `mongodump` without `--oplog`.
 */
import { PassThrough, type Readable } from 'node:stream'
import { mongoEntryName } from './entryName.js'
import { mongodbSourceSchema, type MongodbSourceConfig } from './schema.js'
import { mongodbRestore } from './restore.js'
import { oneByOne } from '../support/oneByOne.js'
import type { Source, SourceContext, SourceEntry, SourceFactory } from '../types.js'
import type { SourceRecord } from '../../tar/snapshotRecord.js'
import { mongodbDrill } from './drill.js'

export type { MongodbSourceConfig }

export const toolVersion = 'backup-daemon-0.1.0'

export { mongoEntryName }

/** The driver is loaded on the first dump (`streamMongoArchive`), not when the daemon starts. */
export class MongodbSource implements Source {
  readonly type = 'mongodb'
  readonly name: string
  /** Documents per `db.collection` the archive holds, once it is written whole. */
  private documents: Record<string, number> | undefined

  constructor(
    private readonly config: MongodbSourceConfig,
    private readonly context: SourceContext,
  ) {
    this.name = config.name
  }

  /**
   * The documents per collection the archive holds, for a restore drill: counted as they are written
   * (exact for the archive; without `oplog` each collection is read at its own moment, as the dump is).
   */
  recorded(): SourceRecord | undefined {
    return this.documents && { collections: this.documents }
  }

  batches(signal: AbortSignal): AsyncIterable<SourceEntry[]> {
    return oneByOne(this.entries(signal))
  }

  /** The folder, then the dump archive, made when the archive writer opens it. */
  private async *entries(signal: AbortSignal): AsyncIterable<SourceEntry> {
    signal.throwIfAborted()
    const mtime = new Date()
    yield { name: this.name, type: 'directory', mode: 0o755, mtime }
    yield { name: mongoEntryName(this.config), type: 'file', mode: 0o600, mtime, open: (s) => this.open(s) }
  }

  private open(signal: AbortSignal): Readable {
    const out = new PassThrough({ highWaterMark: 1 << 20 })
    const log = (level: 'info' | 'warn', message: string) => this.context.log(level, `source "${this.name}": ${message}`)
    import('./streamMongoArchive.js')
      .then(({ streamMongoArchive }) =>
        streamMongoArchive(this.config, out, { toolVersion, signal, log, onWritten: (documents) => (this.documents = documents) }),
      )
      .catch((err: unknown) => out.destroy(signal.aborted ? (signal.reason as Error) : (err as Error)))
    return out
  }
}

export const mongodbSource: SourceFactory<MongodbSourceConfig> = {
  type: 'mongodb',
  configSchema: mongodbSourceSchema,
  secretKeys: ['uri', 'password'],
  pathKeys: [],
  dumps: true,
  restore: mongodbRestore,
  drill: mongodbDrill,
  create: (config, context) => new MongodbSource(config, context),
}
