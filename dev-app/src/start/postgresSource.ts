/**
 * @module start/postgresSource
 * The backup daemon's `postgresql` source for the CMS's `postgres://` URI, in parts: host, port, user,
 * database and the password in its own `password` key. The daemon hands that key to pg_dump in
 * `PGPASSWORD` (never on its command line) and hides it where it shows a job's configuration, which it
 * could not do for a password left inside a URI. Query parameters libpq knows (e.g. `sslmode`) are kept
 * by giving `database` as a libpq key/value string.
 */

export interface PostgresSourceConfig {
  type: 'postgresql'
  name: string
  /** Database name, or `dbname=… key=…` when the URI carried other connection parameters. */
  database: string
  host?: string
  port?: number
  user?: string
  password?: string
}

/** Quotes a libpq key/value value: in single quotes, `\` and `'` escaped. */
const quote = (value: string) => `'${value.replace(/[\\']/g, (c) => `\\${c}`)}'`

/** Throws on a URI that is not `postgres://` / `postgresql://`, without echoing it (it may hold the password). */
export function postgresSourceFromUri(uri: string, name = 'database'): PostgresSourceConfig {
  let url: URL
  try {
    url = new URL(uri)
  } catch {
    throw new Error('DATABASE_URI: not a valid postgres:// URI')
  }
  if (!/^postgres(ql)?:$/i.test(url.protocol)) throw new Error('DATABASE_URI: not a postgres:// or postgresql:// URI')
  const params = new URLSearchParams(url.search)
  const take = (key: string) => {
    const value = params.get(key) ?? undefined
    params.delete(key)
    return value || undefined
  }
  // Query parameters win over the authority, as in libpq (`?host=/run/postgresql` names a socket folder).
  const host = take('host') ?? (url.hostname.replace(/^\[(.*)\]$/, '$1') || undefined)
  const portText = take('port') ?? (url.port || undefined)
  const user = take('user') ?? (url.username ? decodeURIComponent(url.username) : undefined)
  const password = take('password') ?? (url.password ? decodeURIComponent(url.password) : undefined)
  // libpq's default database is the user's name.
  const dbname = take('dbname') ?? (decodeURIComponent(url.pathname.replace(/^\//, '')) || user || 'postgres')
  const port = portText === undefined ? undefined : Number(portText)
  if (port !== undefined && !(Number.isInteger(port) && port >= 1 && port <= 65_535)) throw new Error('DATABASE_URI: port must be 1-65535')
  const extra = [...params.entries()]
  const badKey = extra.find(([key]) => !/^[A-Za-z_]+$/.test(key))
  if (badKey) throw new Error(`DATABASE_URI: "${badKey[0].slice(0, 40)}" is not a connection parameter`)
  const database = extra.length === 0 ? dbname : [['dbname', dbname] as [string, string], ...extra].map(([key, value]) => `${key}=${quote(value)}`).join(' ')
  return {
    type: 'postgresql',
    name,
    database,
    ...(host !== undefined && { host }),
    ...(port !== undefined && { port }),
    ...(user !== undefined && { user }),
    ...(password !== undefined && { password }),
  }
}
