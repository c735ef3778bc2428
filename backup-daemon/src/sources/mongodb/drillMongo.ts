/**
 * @module sources/mongodb/drillMongo
 * The work of a `mongodb` restore drill (`drill.ts`) with the driver: drops the scratch databases of
 * drills whose process is gone, restores the archive into fresh scratch databases of the configured
 * server, counts every collection's documents exactly (`countDocuments`), and drops what it created,
 * even after a failure or a cancel. Messages name the server by its hosts only (never the credentials).
 */
import { createReadStream } from 'node:fs'
import { MongoClient } from 'mongodb'
import { scratchDatabaseName, scratchDatabasePid } from '../support/scratchDatabase.js'
import type { DrillCheck, DrillCheckOptions } from '../types.js'
import { mongoUri } from './dumpSettings.js'
import { restoreMongo } from './restoreMongo.js'
import type { MongodbSourceConfig } from './schema.js'
import { processAlive } from '../support/processAlive.js'

/** The connection string without credentials and options: `mongodb://host:port,host2`. */
function describe(uri: string): string {
  const match = /^(mongodb(?:\+srv)?:\/\/)(?:[^@/]*@)?([^/?]*)/.exec(uri)
  return match ? `${match[1]}${match[2]}` : 'the configured server'
}

const databaseOf = (key: string) => key.slice(0, key.indexOf('.'))

export async function drillMongo(
  options: DrillCheckOptions<MongodbSourceConfig>,
  entry: string,
  path: string,
  expected: Record<string, number>,
): Promise<DrillCheck> {
  const { signal, log } = options
  const uri = mongoUri(options.config)
  const where = describe(uri)
  const client = new MongoClient(uri, { appName: 'backup-daemon-drill', serverSelectionTimeoutMS: 15_000 })
  try {
    await client.connect()
    await client.db('admin').command({ ping: 1 })
  } catch (err) {
    await client.close().catch(() => {})
    if (signal.aborted) throw signal.reason
    throw new Error(`the drill could not connect to the configured server ${where}: ${(err as Error).message}; nothing was created`, { cause: err })
  }
  /** Archived database -> its scratch database (a database the record does not know gets one too). */
  const scratch = new Map<string, string>()
  const scratchOf = (name: string) => {
    if (!scratch.has(name)) scratch.set(name, scratchDatabaseName())
    return scratch.get(name)!
  }
  try {
    try {
      const { databases } = await client.db('admin').admin().listDatabases({ nameOnly: true })
      for (const { name } of databases) {
        const pid = scratchDatabasePid(name)
        if (!pid || pid === process.pid || processAlive(pid)) continue
        await client.db(name).dropDatabase()
        log('info', `dropped ${name}, the scratch database of a drill that did not finish`)
      }
    } catch (err) {
      log('warn', `could not look for scratch databases of unfinished drills on ${where}: ${(err as Error).message}`)
    }
    for (const key of Object.keys(expected)) scratchOf(databaseOf(key))
    log('info', `restoring into scratch database(s) ${[...scratch.values()].join(', ')} on ${where}`)
    const differences: string[] = []
    await restoreMongo(createReadStream(path), uri, { mapDatabase: scratchOf, signal }).catch((err: Error) => {
      if (signal.aborted) throw signal.reason
      differences.push(`${entry}: the restore into the scratch database(s) failed: ${err.message}`)
    })
    const found: Record<string, number> = {}
    for (const [archived, name] of scratch) {
      const db = client.db(name)
      for (const info of await db.listCollections({ type: 'collection' }, { nameOnly: true }).toArray()) {
        if (info.name.startsWith('system.')) continue
        found[`${archived}.${info.name}`] = await db.collection(info.name).countDocuments({})
      }
    }
    for (const [collection, documents] of Object.entries(expected)) {
      const restored = found[collection]
      if (restored === undefined) differences.push(`${entry}: collection "${collection}" is missing (recorded with ${documents} document(s))`)
      else if (restored !== documents) differences.push(`${entry}: collection "${collection}" has ${restored} document(s), the backup recorded ${documents}`)
    }
    for (const collection of Object.keys(found)) {
      if (!(collection in expected)) differences.push(`${entry}: collection "${collection}" was not recorded at backup`)
    }
    return { checked: `${entry}: restored into scratch database(s) on ${where}, ${Object.keys(found).length} collection(s) and their documents`, differences }
  } finally {
    for (const name of scratch.values()) {
      await client
        .db(name)
        .dropDatabase()
        .then(
          () => log('info', `dropped scratch database ${name}`),
          (err: Error) => log('warn', `could not drop scratch database ${name} on ${where}: ${err.message} (the next drill drops it)`),
        )
    }
    await client.close().catch(() => {})
  }
}
