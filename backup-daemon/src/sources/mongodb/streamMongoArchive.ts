/**
 * @module sources/mongodb/streamMongoArchive
 * Connects, plans and streams one archive into `out` (gzipped when asked). Loaded on first use only:
 * the driver costs ~25 MiB of memory that daemons without a `mongodb` source should not pay.
 */
import { Readable, type Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createGzip } from 'node:zlib'
import { MongoClient } from 'mongodb'
import type { MongodbSourceConfig } from './index.js'
import { dumpPlan } from './dumpPlan.js'
import { writeArchive } from './writeArchive.js'

export interface StreamMongoArchiveOptions {
  toolVersion: string
  signal: AbortSignal
  log(level: 'info' | 'warn', message: string): void
}

export async function streamMongoArchive(config: MongodbSourceConfig, out: Writable, { toolVersion, signal, log }: StreamMongoArchiveOptions): Promise<void> {
  const client = new MongoClient(config.uri, { appName: 'backup-daemon' })
  const close = () => void client.close(true).catch(() => {})
  signal.addEventListener('abort', close, { once: true })
  try {
    await client.connect()
    const plan = await dumpPlan(client, {
      database: config.database,
      excludeCollections: config.excludeCollections,
      toolVersion,
      signal,
      log: (message) => log('warn', message),
    })
    log('info', `dumping ${plan.collections.length} collection(s)`)
    const stages: NodeJS.ReadWriteStream[] = config.gzip ? [createGzip()] : []
    await pipeline([Readable.from(writeArchive(plan)), ...stages, out], { signal })
  } finally {
    signal.removeEventListener('abort', close)
    await client.close().catch(() => {})
  }
}
