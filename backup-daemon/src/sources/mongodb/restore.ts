/**
 * @module sources/mongodb/restore
 * How a `mongodb` source is restored (`DatabaseRestore`): its archive is read back into the server it
 * came from (`restoreMongo`; `overwrite` drops the collections first). Only where it reads from (the
 * CLI): `restore.databases` has no MongoDB target. The restore, and with it the `mongodb` driver (~200 ms
 * to import), is imported only when a mongodb source is restored (README "Start-up time").
 */
import type { DatabaseRestore } from '../types.js'
import { mongoUri } from './dumpSettings.js'
import type { MongodbSourceConfig } from './schema.js'

export const mongodbRestore: DatabaseRestore<MongodbSourceConfig> = {
  async restore(entry, config, { overwrite, signal }) {
    const { restoreMongo } = await import('./restoreMongo.js')
    const result = await restoreMongo(entry, mongoUri(config), { drop: overwrite, signal })
    return `${result.collections} collection(s), ${result.documents} document(s)`
  },
}
