/**
 * @module test/restoreMatrix/support/fingerprints
 * What a database holds, as a value two restores can be compared by: per table its row count and a digest
 * of its rows (SQLite, PostgreSQL, MariaDB); per Redis database its keys with type, value and whether they
 * expire. A difference is a readable line ("table orders: 17 row(s), the source 20"), not a hash mismatch.
 */
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { openSqlite } from '../../support/sqliteDb.js'
import type { MariadbServer } from '../../support/mariadbServer.js'
import { startRedisServer, type RedisServer } from '../../support/redisServer.js'
import type { PostgresCluster } from '../../sources/support/postgresCluster.js'

const run = promisify(execFile)

/** Table (or Redis database) → rows (keys) and a digest of their contents. */
export type Fingerprint = Record<string, { rows: number; digest: string }>

/** What differs between two fingerprints, one line each. */
export function diffFingerprints(expected: Fingerprint, actual: Fingerprint, what = 'table'): string[] {
  const lines: string[] = []
  for (const [name, want] of Object.entries(expected)) {
    const got = actual[name]
    if (!got) lines.push(`${what} ${name}: missing`)
    else if (got.rows !== want.rows) lines.push(`${what} ${name}: ${got.rows} row(s), the source ${want.rows}`)
    else if (got.digest !== want.digest) lines.push(`${what} ${name}: the same ${got.rows} row(s) count but other contents`)
  }
  for (const name of Object.keys(actual)) if (!(name in expected)) lines.push(`${what} ${name}: restored but not in the source`)
  return lines
}

const digest = (text: string) => createHash('sha256').update(text).digest('hex')

/** A SQLite file's user tables (read-only). */
export function sqliteFingerprint(path: string): Fingerprint {
  const db = openSqlite(`file:${path}?mode=ro`)
  try {
    const names = (db as unknown as { prepare(sql: string): { all(): { name: string }[] } })
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .all()
      .map((row) => row.name)
    const out: Fingerprint = {}
    for (const name of names) {
      const rows = (db as unknown as { prepare(sql: string): { all(): unknown[] } })
        .prepare(`SELECT * FROM "${name.replaceAll('"', '""')}" ORDER BY rowid`)
        .all()
      out[name] = { rows: rows.length, digest: digest(JSON.stringify(rows, (_, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v))) }
    }
    return out
  } finally {
    db.close()
  }
}

const literal = (name: string) => `'${name.replaceAll("'", "''")}'`

/**
 * A PostgreSQL database's tables in `public`: count and md5 of the rows as text, in order. Two psql calls
 * (the tables, then every table's count and digest in one query), not one per table: the matrix takes
 * dozens of fingerprints, each psql a process.
 */
export async function postgresFingerprint(pg: PostgresCluster, database: string): Promise<Fingerprint> {
  const tables = (await pg.sql(database, "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")).split('\n').filter(Boolean)
  const out: Fingerprint = {}
  if (tables.length === 0) return out
  const query = tables
    .map((table, i) => `SELECT ${i}, count(*), coalesce(md5(string_agg(t::text, E'\\n' ORDER BY t::text)), '') FROM "${table.replaceAll('"', '""')}" t`)
    .join(' UNION ALL ')
  for (const line of (await pg.sql(database, query)).split('\n').filter(Boolean)) {
    const [index = '', rows = '0', sum = ''] = line.split('|')
    out[tables[Number(index)]!] = { rows: Number(rows), digest: sum }
  }
  return out
}

/** A MariaDB database's tables: `COUNT(*)` and `CHECKSUM TABLE`, two client calls (see `postgresFingerprint`). */
export async function mariadbFingerprint(maria: MariadbServer, database: string): Promise<Fingerprint> {
  const tables = (await maria.sql(`SELECT table_name FROM information_schema.tables WHERE table_schema = ${literal(database)} ORDER BY 1`))
    .split('\n')
    .filter(Boolean)
  const out: Fingerprint = {}
  if (tables.length === 0) return out
  const quoted = tables.map((table) => `\`${database}\`.\`${table.replaceAll('`', '``')}\``)
  // The counts' rows first (`count <index> <rows>`), then CHECKSUM TABLE's (`<db>.<table> <sum>`, in the order asked).
  const counts = quoted.map((table, i) => `SELECT 'count', ${i}, COUNT(*) FROM ${table}`).join(' UNION ALL ')
  const lines = (await maria.sql(`${counts}; CHECKSUM TABLE ${quoted.join(', ')}`)).split('\n')
  const sums = lines.filter((line) => !line.startsWith('count\t'))
  for (const line of lines.filter((line) => line.startsWith('count\t'))) {
    const [, index = '', rows = '0'] = line.split('\t')
    out[tables[Number(index)]!] = { rows: Number(rows), digest: sums[Number(index)]?.split('\t')[1] ?? '' }
  }
  return out
}

/** Every key of Redis database `db` with its type, value and whether it expires, digested in a script on the server. */
const keyspaceScript = `
local keys = redis.call('KEYS', '*')
table.sort(keys)
local out = {}
for _, k in ipairs(keys) do
  local t = redis.call('TYPE', k)['ok']
  local parts = {}
  if t == 'string' then parts = { redis.call('GET', k) }
  elseif t == 'list' then parts = redis.call('LRANGE', k, 0, -1)
  elseif t == 'set' then parts = redis.call('SMEMBERS', k); table.sort(parts)
  elseif t == 'zset' then parts = redis.call('ZRANGE', k, 0, -1, 'WITHSCORES')
  elseif t == 'hash' then
    local flat = redis.call('HGETALL', k)
    for i = 1, #flat, 2 do parts[#parts + 1] = flat[i] .. '=' .. redis.sha1hex(flat[i + 1]) end
    table.sort(parts)
  end
  local expires = redis.call('PTTL', k) > 0 and 'expires' or 'keeps'
  out[#out + 1] = redis.sha1hex(k) .. ' ' .. t .. ' ' .. expires .. ' ' .. redis.sha1hex(table.concat(parts, '\\0'))
end
return { #keys, redis.sha1hex(table.concat(out, '\\n')) }`

export async function redisFingerprint(redis: Pick<RedisServer, 'cli'>, databases = [0, 1]): Promise<Fingerprint> {
  const out: Fingerprint = {}
  for (const db of databases) {
    const [count = '0', sum = ''] = (await redis.cli('-n', String(db), 'EVAL', keyspaceScript, '0')).split('\n')
    if (Number(count) > 0) out[`db${db}`] = { rows: Number(count), digest: sum }
  }
  return out
}

/** An RDB file's keyspace: loaded into a throwaway server, digested, the server stopped. */
export async function rdbFingerprint(rdbPath: string): Promise<Fingerprint> {
  // With its password: redis-cli with an empty REDISCLI_AUTH fails its AUTH and then skips `-n`'s SELECT.
  const server = await startRedisServer({ rdb: { dir: join(rdbPath, '..'), file: rdbPath.split('/').at(-1)! } })
  try {
    return await redisFingerprint(server)
  } finally {
    await server.stop()
  }
}

/** A PostgreSQL custom-format dump's contents: restored into a scratch database of `pg`, digested, dropped. */
export async function pgDumpFingerprint(pg: PostgresCluster, dumpPath: string, scratch: string): Promise<Fingerprint> {
  // (`scratch` is this process's own: no leftover of that name to drop first)
  await pg.sql('postgres', `CREATE DATABASE ${scratch}`)
  try {
    await run(join(pg.bin, 'pg_restore'), [
      '--no-owner',
      '--no-privileges',
      '--exit-on-error',
      '-h',
      pg.socketDir,
      '-p',
      String(pg.port),
      '-U',
      pg.superuser,
      '-d',
      scratch,
      dumpPath,
    ])
    return await postgresFingerprint(pg, scratch)
  } finally {
    await pg.sql('postgres', `DROP DATABASE IF EXISTS ${scratch}`)
  }
}

/** A MariaDB dump's contents: loaded into a scratch database by the `mariadb` client, digested, dropped. */
export async function mysqlDumpFingerprint(maria: MariadbServer, dumpPath: string, scratch: string): Promise<Fingerprint> {
  await maria.sql(`CREATE DATABASE ${scratch}`)
  try {
    await run('sh', ['-c', `mariadb --no-defaults --socket="$1" --user=root --binary-mode "$2" < "$3"`, 'sh', maria.socket, scratch, dumpPath])
    return await mariadbFingerprint(maria, scratch)
  } finally {
    await maria.sql(`DROP DATABASE IF EXISTS ${scratch}`)
  }
}
