/**
 * @module sources/mongodb/drill
 * How a restore drill proves a `mongodb` source's archive restores (`SourceDrill`): the archive is loaded
 * with the daemon's own restore (`restoreMongo`) into scratch databases (`support/scratchDatabase`, one
 * per archived database) on the source's own server, every collection's documents are counted and
 * compared with the counts written into the archive at backup, and the scratch databases are dropped,
 * whatever happens. No temporary server: a `mongod` is not something the daemon can count on being
 * installed, so `databaseServer: temporary` fails this check saying so. The driver is imported only when
 * a drill runs (`drillMongo`), as for the dump and the restore.
 */
import type { SourceDrill } from '../types.js'
import { mongoEntryName } from './entryName.js'
import type { MongodbSourceConfig } from './schema.js'

/** What the source records at backup time: documents per `db.collection` written into the archive. */
export type MongodbRecord = { collections: Record<string, number> }

export const mongodbDrill: SourceDrill<MongodbSourceConfig> = {
  async check(options) {
    const entry = mongoEntryName(options.config)
    const file = options.files.find((f) => f.name === entry)
    if (!file) return { checked: entry, differences: [`${entry}: not in the snapshot`] }
    const expected = (options.recorded as MongodbRecord | undefined)?.collections
    if (!expected) return { checked: entry, differences: [`${entry}: the snapshot's record holds no document counts for source "${options.config.name}"`] }
    if (options.databaseServer === 'temporary') {
      const why =
        'databaseServer: temporary is not available for a mongodb source (the drill starts no mongod); it drills into scratch databases of the configured server'
      return { checked: entry, differences: [`${entry}: ${why}`] }
    }
    const { drillMongo } = await import('./drillMongo.js')
    return drillMongo(options, entry, file.path, expected)
  },
}
