/**
 * @module sources/mongodb/restoreMongo
 * Restores a mongodump archive into a server with the Node driver (what `mongorestore --archive`
 * does, for the parts our archives hold): collections created with their options, documents inserted
 * unordered in batches (values deserialized with `promoteValues: false` so int32/int64/double/binary
 * round-trip), indexes built last (faster than maintaining them during the load), views created last.
 */
import type { Readable } from 'node:stream'
import { BSON, MongoClient, type Db } from 'mongodb'
import { parseMongoArchive, type ParsedPrelude } from './parseMongoArchive.js'

export interface RestoreMongoOptions {
  /** Restore into this database instead of the archived one (only for a one-database archive). */
  toDatabase?: string
  /** Restore each archived database into the one this names (a restore drill's scratch databases); wins over `toDatabase`. */
  mapDatabase?: (name: string) => string
  /** Drop each collection before restoring it. @default false */
  drop?: boolean
  /** Documents per insertMany. @default 1000 */
  batchSize?: number
  signal?: AbortSignal
  log?: (message: string) => void
}

export interface RestoreMongoResult {
  collections: number
  documents: number
}

interface Metadata {
  options?: Record<string, unknown>
  indexes?: Record<string, unknown>[]
  type?: string
}

const isView = (prelude: (ParsedPrelude & { meta: Metadata }) | undefined) => (prelude?.meta.type ?? prelude?.type) === 'view'

/**
 * @example
 * await restoreMongo(entryStream, process.env.MONGODB_URI!, { drop: true })
 */
export async function restoreMongo(archive: Readable, uri: string, options: RestoreMongoOptions = {}): Promise<RestoreMongoResult> {
  const batchSize = options.batchSize ?? 1000
  const client = await new MongoClient(uri, { appName: 'backup-daemon-restore' }).connect()
  const preludes = new Map<string, ParsedPrelude & { meta: Metadata }>()
  const databases = new Set<string>()
  const dbOf = (name: string): Db => client.db(options.mapDatabase?.(name) ?? options.toDatabase ?? name)
  const result: RestoreMongoResult = { collections: 0, documents: 0 }
  const prepared = new Set<string>()
  let batch: BSON.Document[] = []
  let batchNs: { db: string; collection: string } | undefined
  const flush = async () => {
    if (!batchNs || batch.length === 0) return
    await dbOf(batchNs.db).collection(batchNs.collection).insertMany(batch, { ordered: false, bypassDocumentValidation: true })
    result.documents += batch.length
    batch = []
  }
  const prepare = async (db: string, collection: string) => {
    const key = `${db}.${collection}`
    if (prepared.has(key)) return
    prepared.add(key)
    const prelude = preludes.get(key)
    if (options.drop)
      await dbOf(db)
        .collection(collection)
        .drop()
        .catch(() => {})
    const { options: collectionOptions = {} } = prelude?.meta ?? {}
    const exists = (await dbOf(db).listCollections({ name: collection }, { nameOnly: true }).toArray()).length > 0
    if (!exists) await dbOf(db).createCollection(collection, collectionOptions)
    result.collections++
  }
  try {
    for await (const event of parseMongoArchive(archive)) {
      options.signal?.throwIfAborted()
      if (event.kind === 'collection') {
        const meta = BSON.EJSON.parse(event.prelude.metadata || '{}', { relaxed: false }) as Metadata
        preludes.set(`${event.prelude.db}.${event.prelude.collection}`, { ...event.prelude, meta })
        databases.add(event.prelude.db)
      } else if (event.kind === 'document') {
        if (batchNs?.db !== event.db || batchNs.collection !== event.collection) {
          await flush()
          batchNs = { db: event.db, collection: event.collection }
          await prepare(event.db, event.collection)
        }
        batch.push(BSON.deserialize(event.bytes, { promoteValues: false, promoteLongs: false, promoteBuffers: false }))
        if (batch.length >= batchSize) await flush()
      } else if (event.kind === 'eof') {
        await flush()
        // A view's namespace ends without data; it is created from its metadata at the end.
        if (!isView(preludes.get(`${event.db}.${event.collection}`))) await prepare(event.db, event.collection)
        options.log?.(`restored ${event.db}.${event.collection}`)
      }
    }
    await flush()
    for (const prelude of preludes.values()) {
      const { db, collection, meta } = prelude
      if (isView(prelude)) {
        const { viewOn, pipeline, ...rest } = meta.options ?? {}
        if (options.drop)
          await dbOf(db)
            .collection(collection)
            .drop()
            .catch(() => {})
        await dbOf(db).createCollection(collection, { viewOn: viewOn as string, pipeline: pipeline as BSON.Document[], ...rest })
        result.collections++
        continue
      }
      await prepare(db, collection)
      // The _id index exists with the collection; the others are built now, in one command.
      const indexes = (meta.indexes ?? []).filter((index) => index.name !== '_id_').map(({ v: _v, ns: _ns, ...index }) => index)
      if (indexes.length > 0) await dbOf(db).command({ createIndexes: collection, indexes })
    }
    return result
  } finally {
    await client.close()
  }
}
