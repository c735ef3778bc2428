/**
 * @module sources/mongodb/streamMongoArchive
 * Connects, plans and streams one archive into `out` (gzipped when asked). Loaded on first use only:
 * the driver costs ~25 MiB of memory that daemons without a `mongodb` source should not pay.
 */
import { Readable, type Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createGzip } from 'node:zlib'
import { MongoClient, type ClientSession } from 'mongodb'
import type { MongodbSourceConfig } from './schema.js'
import { dumpPlan } from './dumpPlan.js'
import { dumpSettings } from './dumpSettings.js'
import { writeArchive } from './writeArchive.js'

export interface StreamMongoArchiveOptions {
  toolVersion: string
  signal: AbortSignal
  log(level: 'info' | 'warn', message: string): void
  /** The documents written per `db.collection`, once the archive's last collection is written (`ArchivePlan.onWritten`). */
  onWritten?(documents: Record<string, number>): void
}

export async function streamMongoArchive(
  config: MongodbSourceConfig,
  out: Writable,
  { toolVersion, signal, log, onWritten }: StreamMongoArchiveOptions,
): Promise<void> {
  const settings = dumpSettings(config)
  const client = new MongoClient(settings.uri, { appName: 'backup-daemon' })
  const close = () => void client.close(true).catch(() => {})
  signal.addEventListener('abort', close, { once: true })
  let session: ClientSession | undefined
  try {
    await client.connect()
    // oplog: true: one snapshot session for every read, so the dump is one point in time.
    session = settings.pointInTime ? client.startSession({ snapshot: true }) : undefined
    const plan = await dumpPlan(client, {
      database: settings.database,
      excludeCollections: settings.excludeCollections,
      excludePrefixes: settings.excludePrefixes,
      collection: settings.collection,
      session,
      toolVersion,
      signal,
      log: (message) => log('warn', message),
    })
    log('info', `dumping ${plan.collections.length} collection(s)${session ? ' at one point in time (snapshot session)' : ''}`)
    const stages: NodeJS.ReadWriteStream[] = settings.gzip ? [createGzip()] : []
    if (onWritten) plan.onWritten = onWritten
    await pipeline([Readable.from(writeArchive(plan)), ...stages, out], { signal })
  } finally {
    await session?.endSession().catch(() => {})
    signal.removeEventListener('abort', close)
    await client.close().catch(() => {})
  }
}
