/**
 * @module sources/mongodb/dumpSettings
 * The original's `mongodb` keys (its docs: `uri` or `host`/`port`/`username`/`password`/`authDatabase`,
 * `database` or `allDatabases`, `oplog`, `excludeTables`, `extraParams` as mongodump flags) turned into
 * what the driver-based dump does: a connection string, which databases and collections, gzip, and
 * whether the reads share one point in time. Pure, so the mapping is tested without a server.
 */
import type { MongodbSourceConfig } from './schema.js'

export interface DumpSettings {
  /** Connection string with the credentials (kept in memory, never logged). */
  uri: string
  /** One database, or undefined for every database but admin/local/config. */
  database?: string
  /** `collection` or `db.collection` names left out. */
  excludeCollections: string[]
  excludePrefixes: string[]
  /** Only this collection of `database`. */
  collection?: string
  gzip: boolean
  /** `oplog: true`: every collection is read in one snapshot session (one point in time). */
  pointInTime: boolean
}

const truthy = (value: string | undefined) => value !== undefined && value !== 'false' && value !== '0'

/** The connection string: `uri` wins (the original ignores host/port/credentials then), else built from the parts. */
export function mongoUri(config: MongodbSourceConfig): string {
  const extra = config.extraParams ?? {}
  const params = new URLSearchParams()
  let base = config.uri
  if (!base) {
    const host = config.host ?? '127.0.0.1'
    const credentials = config.username ? `${encodeURIComponent(config.username)}${config.password ? `:${encodeURIComponent(config.password)}` : ''}@` : ''
    base = `mongodb://${credentials}${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${config.port ?? 27017}/`
    if (config.authDatabase) params.set('authSource', config.authDatabase)
  }
  if (extra.readPreference) params.set('readPreference', extra.readPreference)
  if (extra.authenticationMechanism) params.set('authMechanism', extra.authenticationMechanism)
  if (truthy(extra.ssl) || truthy(extra.tls)) params.set('tls', 'true')
  const caFile = extra.tlsCAFile ?? extra.sslCAFile
  if (caFile) params.set('tlsCAFile', caFile)
  if (truthy(extra.tlsInsecure)) params.set('tlsInsecure', 'true')
  const query = params.toString()
  if (!query) return base
  // A multi-host URI (`mongodb://a:1,b:2/db?replicaSet=x`) is no WHATWG URL: append the options as text.
  const withPath = /^mongodb(\+srv)?:\/\/[^/?]*$/.test(base) ? `${base}/` : base
  return `${withPath}${withPath.includes('?') ? '&' : '?'}${query}`
}

export function dumpSettings(config: MongodbSourceConfig): DumpSettings {
  const extra = config.extraParams ?? {}
  return {
    uri: mongoUri(config),
    // `allDatabases: true` means every database, as the original's (it omits --db).
    database: config.allDatabases ? undefined : config.database,
    excludeCollections: [...(config.excludeCollections ?? []), ...(config.excludeTables ?? [])],
    excludePrefixes: (extra.excludeCollectionsWithPrefix ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    collection: extra.collection || undefined,
    gzip: Boolean(config.gzip) || (extra.gzip !== undefined && extra.gzip !== 'false'),
    pointInTime: config.oplog === true,
  }
}
