/**
 * @module sources/postgresql/connectionString
 * A `postgresql` source's `database` may be a plain name, a URI (`postgresql://user:secret@host/db`)
 * or a libpq key/value string (`host=db dbname=shop password=secret`). The password inside it must
 * never reach a command line (`ps` shows it to every local user) or a log line: `splitPassword` takes
 * it out (it then travels in `PGPASSWORD`) and gives a label (the database name) for logs and the
 * archive entry's name.
 */

export interface SplitConnection {
  /** The `database` value without its password, safe for `--dbname=` and for display. */
  database: string
  /** The password that was inside, if any. */
  password?: string
  /** The database name alone, for logs and file names. */
  label: string
}

const uriPrefix = /^postgres(?:ql)?:\/\//i

function decode(value: string): string {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}

function splitUri(uri: string): SplitConnection {
  const prefix = uriPrefix.exec(uri)![0]
  let rest = uri.slice(prefix.length)
  let password: string | undefined
  // userinfo ends at the last "@" before the path, query or fragment.
  const authorityEnd = rest.search(/[/?#]/)
  const authority = authorityEnd === -1 ? rest : rest.slice(0, authorityEnd)
  const at = authority.lastIndexOf('@')
  if (at !== -1) {
    const userinfo = authority.slice(0, at)
    const colon = userinfo.indexOf(':')
    if (colon !== -1) {
      password = decode(userinfo.slice(colon + 1))
      rest = `${userinfo.slice(0, colon)}@${rest.slice(at + 1)}`
    }
  }
  const queryStart = rest.indexOf('?')
  if (queryStart !== -1) {
    const kept: string[] = []
    for (const pair of rest.slice(queryStart + 1).split('&')) {
      const [key = '', ...value] = pair.split('=')
      if (decode(key) === 'password') password = decode(value.join('='))
      else kept.push(pair)
    }
    rest = rest.slice(0, queryStart) + (kept.length ? `?${kept.join('&')}` : '')
  }
  const path = /^[^/?#]*\/([^?#]*)/.exec(rest)?.[1] ?? ''
  const query = /[?&]dbname=([^&#]*)/.exec(rest)?.[1]
  const label = decode(query ?? path) || 'postgres'
  return { database: prefix + rest, ...(password !== undefined && { password }), label }
}

/** Splits a libpq `key=value` string (values may be single-quoted with backslash escapes). */
function splitKeyValue(conninfo: string): SplitConnection {
  const pattern = /\s*([A-Za-z_]+)\s*=\s*('(?:[^'\\]|\\.)*'|(?:[^\s'\\]|\\.)*)/gy
  const kept: string[] = []
  let password: string | undefined
  let label = ''
  let match: RegExpExecArray | null
  let end = 0
  while ((match = pattern.exec(conninfo)) !== null && match[0] !== '') {
    end = pattern.lastIndex
    const [, key = '', raw = ''] = match
    const value = (raw.startsWith("'") ? raw.slice(1, -1) : raw).replace(/\\(.)/g, '$1')
    if (key === 'password') password = value
    else {
      if (key === 'dbname') label = value
      kept.push(`${key}=${raw}`)
    }
  }
  // Not echoed: the part that could not be read may be (or hold) the password.
  if (conninfo.slice(end).trim()) throw new Error("database: connection string not understood (expected key=value pairs, values quoted with '...')")
  return { database: kept.join(' '), ...(password !== undefined && { password }), label: label || 'postgres' }
}

export function splitPassword(database: string): SplitConnection {
  if (uriPrefix.test(database)) return splitUri(database)
  if (database.includes('=')) return splitKeyValue(database)
  return { database, label: database }
}

/**
 * `database` (a name, a URI or a key/value string) with the database it names replaced by `name`, the rest
 * (host, options, password) kept: how a drill connects to its scratch database with the source's connection.
 */
export function withDatabase(database: string, name: string): string {
  if (uriPrefix.test(database)) {
    const query = database.indexOf('?')
    const base = query === -1 ? database : database.slice(0, query)
    const params = query === -1 ? '' : database.slice(query + 1)
    const authorityStart = uriPrefix.exec(base)![0].length
    const slash = base.indexOf('/', authorityStart)
    const kept = params.split('&').filter((pair) => pair && decode(pair.split('=')[0] ?? '') !== 'dbname')
    return `${slash === -1 ? base : base.slice(0, slash)}/${encodeURIComponent(name)}${kept.length ? `?${kept.join('&')}` : ''}`
  }
  if (database.includes('=')) {
    const pattern = /(^|\s)dbname\s*=\s*('(?:[^'\\]|\\.)*'|(?:[^\s'\\]|\\.)*)/
    return pattern.test(database) ? database.replace(pattern, `$1dbname=${name}`) : `${database} dbname=${name}`
  }
  return name
}
