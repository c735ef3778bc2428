/**
 * @module sources/mongodb/entryName
 * The archive entry name of a `mongodb` source's dump (`<name>/<database|all>.archive[.gz]`), shared by
 * the source and its restore drill.
 */
import { dumpSettings } from './dumpSettings.js'
import type { MongodbSourceConfig } from './schema.js'

export function mongoEntryName(config: Pick<MongodbSourceConfig, 'name' | 'database' | 'gzip' | 'allDatabases' | 'extraParams'>): string {
  const { database, gzip } = dumpSettings({ type: 'mongodb', ...config })
  const base = (database ?? 'all').replace(/[^A-Za-z0-9._-]/g, '_')
  return `${config.name}/${base}.archive${gzip ? '.gz' : ''}`
}
