/**
 * @module sources/mongodb/dumpPlan
 * What to dump from a connected client, as an `ArchivePlan`: one database or every database but
 * `admin`, `local` and `config` (users and roles are not dumped), minus excluded collections and
 * `system.*` collections (time-series buckets are skipped with their view: restoring them needs
 * mongorestore's special handling). Metadata is read with `promoteValues: false` so number types survive.
 */
import type { BSON, ClientSession, Db, MongoClient } from 'mongodb'
import { collectionMetadata, type CollectionInfo } from './collectionMetadata.js'
import type { ArchiveCollection, ArchivePlan } from './writeArchive.js'

export interface DumpPlanOptions {
  database?: string
  /** `db.collection`, or `collection` (matched in every dumped database). */
  excludeCollections?: string[]
  /** Collections whose name starts with one of these are left out. */
  excludePrefixes?: string[]
  /** Only this collection (of `database`). */
  collection?: string
  /** A snapshot session: every document read at the same point in time. */
  session?: ClientSession
  toolVersion: string
  log?: (message: string) => void
  signal: AbortSignal
}

const skippedDatabases = new Set(['admin', 'local', 'config'])
const serializeOptions = { promoteValues: false, promoteLongs: false } as const

export async function dumpPlan(client: MongoClient, options: DumpPlanOptions): Promise<ArchivePlan> {
  const admin = client.db('admin')
  const build = (await admin.command({ buildInfo: 1 })) as { version?: string }
  const databases = options.database
    ? [options.database]
    : (await admin.admin().listDatabases({ nameOnly: true })).databases
        .map((d) => d.name)
        .filter((name) => !skippedDatabases.has(name))
        .sort()
  const excluded = new Set(options.excludeCollections ?? [])
  const collections: ArchiveCollection[] = []
  for (const name of databases) {
    options.signal.throwIfAborted()
    const db = client.db(name)
    const infos = (await db.listCollections({}, serializeOptions).toArray()) as unknown as CollectionInfo[]
    infos.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    for (const info of infos) {
      if (info.name.startsWith('system.') || excluded.has(info.name) || excluded.has(`${name}.${info.name}`)) continue
      if (options.excludePrefixes?.some((prefix) => info.name.startsWith(prefix))) continue
      if (options.collection !== undefined && info.name !== options.collection) continue
      const type = info.type ?? 'collection'
      if (type === 'timeseries') {
        options.log?.(`skipped time-series collection ${name}.${info.name}`)
        continue
      }
      const indexes = type === 'view' ? [] : ((await db.collection(info.name).listIndexes(serializeOptions).toArray()) as Record<string, unknown>[])
      collections.push({
        db: name,
        collection: info.name,
        metadata: collectionMetadata(info, indexes),
        type,
        documents: type === 'view' ? undefined : () => rawDocuments(db, info.name, options.signal, options.session),
      })
    }
  }
  return { header: { concurrentCollections: 1, serverVersion: build.version ?? '0.0.0', toolVersion: options.toolVersion }, collections }
}

async function* rawDocuments(db: Db, collection: string, signal: AbortSignal, session?: ClientSession): AsyncGenerator<Uint8Array> {
  // Natural order, no sort: the cheapest full scan; `raw` hands out the BSON bytes as stored.
  const cursor = db.collection(collection).find({}, { raw: true, batchSize: 1000, ...(session && { session }) })
  try {
    for await (const document of cursor) {
      signal.throwIfAborted()
      yield document as unknown as BSON.Document as Uint8Array
    }
  } finally {
    await cursor.close()
  }
}
