/**
 * @module sources/mysql/drill
 * How a restore drill proves a `mysql`/`mariadb` source's dump restores (`SourceDrill`): the restored
 * `.sql` entry is loaded with the daemon's own restore (`restoreMysql`) into
 * - `databaseServer: configured`: a scratch database (`support/scratchDatabase`) created on the source's
 *   own server and dropped afterwards whatever happens (cancel too). A single-database dump only: an
 *   all-databases dump names its own databases and carries the `mysql` system tables, which cannot be
 *   loaded into a scratch database of a live server without rewriting the dump (use `temporary`).
 *   Scratch databases left by a drill whose process is gone are dropped first.
 * - `temporary`: a throwaway server started in the drill's scratch folder (`temporaryMysqlServer`).
 * Then every table's exact `COUNT(*)` is compared with the counts recorded from the dump at backup
 * (`countDumpRows`): a missing or extra table and a different row count are each named.
 */
import { createReadStream } from 'node:fs'
import { join } from 'node:path'
import { scratchDatabaseName, scratchDatabasePid, scratchDatabasePrefix } from '../support/scratchDatabase.js'
import type { DrillCheck, DrillCheckOptions, SourceDrill } from '../types.js'
import { mysqlDumpEntryName } from './MysqlSource.js'
import { mysqlQuery, quoteMysqlName, quoteMysqlString } from './mysqlQuery.js'
import { restoreMysql, type MysqlConnection } from './restoreMysql.js'
import type { MysqlFamilyConfig } from './schema.js'
import { startTemporaryMysqlServer } from './temporaryMysqlServer.js'
import { processAlive } from '../support/processAlive.js'

/** What the source records at backup time: rows per `database.table`, counted from the dump. */
export type MysqlRecord = { tables: Record<string, number> }

/** Schemas a fresh server has of its own: their extra tables are not the dump's business. */
const systemSchemas = new Set(['mysql', 'sys', 'performance_schema', 'information_schema'])
/**
 * Tables the server fills itself (the dump holds their structure only, `mariadb-dump` skips their rows): the
 * temporary server recomputes index statistics as the dump loads, so only their presence is compared.
 */
const serverMaintained = new Set(['mysql.innodb_index_stats', 'mysql.innodb_table_stats', 'mysql.general_log', 'mysql.slow_log'])

/** Exact row counts of every base table of `schemas`, keyed `schema.table`. */
async function countTables(connection: MysqlConnection, schemas: string[], signal: AbortSignal): Promise<Record<string, number>> {
  if (!schemas.length) return {}
  const list = await mysqlQuery(
    connection,
    `SELECT table_schema, table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE' AND table_schema IN (${schemas.map(quoteMysqlString).join(', ')})`,
    signal,
  )
  const counts: Record<string, number> = {}
  for (let start = 0; start < list.length; start += 50) {
    const batch = list.slice(start, start + 50)
    const sql = batch.map(([schema, table], i) => `SELECT ${start + i}, COUNT(*) FROM ${quoteMysqlName(schema!)}.${quoteMysqlName(table!)}`).join(' UNION ALL ')
    for (const [index, rows] of await mysqlQuery(connection, sql, signal)) {
      const [schema, table] = list[Number(index)]!
      counts[`${schema}.${table}`] = Number(rows)
    }
  }
  return counts
}

/** Recorded against restored, each difference named; `rename` maps a recorded schema to where it was restored. */
function compare(entry: string, expected: Record<string, number>, found: Record<string, number>, restoredSchemas: Set<string>): string[] {
  const differences: string[] = []
  for (const [table, rows] of Object.entries(expected)) {
    const restored = found[table]
    if (restored === undefined) differences.push(`${entry}: table "${table}" is missing (recorded with ${rows} row(s))`)
    else if (restored !== rows && !serverMaintained.has(table))
      differences.push(`${entry}: table "${table}" has ${restored} row(s), the backup recorded ${rows}`)
  }
  for (const table of Object.keys(found)) {
    const schema = table.slice(0, table.indexOf('.'))
    if (!(table in expected) && restoredSchemas.has(schema) && !systemSchemas.has(schema))
      differences.push(`${entry}: table "${table}" was not recorded at backup`)
  }
  return differences
}

/** Drops the scratch databases of drills whose process is gone (killed mid-drill) on this server. */
async function dropLeftovers(connection: MysqlConnection, options: DrillCheckOptions<MysqlFamilyConfig>): Promise<void> {
  const like = quoteMysqlString(scratchDatabasePrefix.replace(/_/g, '\\_') + '%')
  for (const [name] of await mysqlQuery(connection, `SHOW DATABASES LIKE ${like}`, options.signal)) {
    const pid = scratchDatabasePid(name!)
    if (!pid || pid === process.pid || processAlive(pid)) continue
    await mysqlQuery(connection, `DROP DATABASE IF EXISTS ${quoteMysqlName(name!)}`, options.signal)
    options.log('info', `dropped ${name}, the scratch database of a drill that did not finish`)
  }
}

async function onConfigured(options: DrillCheckOptions<MysqlFamilyConfig>, entry: string, path: string, expected: Record<string, number>): Promise<DrillCheck> {
  const { config, signal } = options
  const where = config.socket ?? `${config.host}:${config.port}`
  if (config.allDatabases) {
    const why = `an all-databases dump names its own databases (and the server's mysql tables): it cannot go into a scratch database on the configured server; set jobs[].drill.databaseServer: temporary`
    return { checked: entry, differences: [`${entry}: ${why}`] }
  }
  const connection: MysqlConnection = { host: config.host, port: config.port, socket: config.socket, username: config.username, password: config.password }
  const scratch = scratchDatabaseName()
  try {
    await dropLeftovers(connection, options)
    await mysqlQuery(connection, `CREATE DATABASE ${quoteMysqlName(scratch)}`, signal)
  } catch (err) {
    if (signal.aborted) throw signal.reason
    const message = (err as Error).message
    // 1044 "Access denied for user … to database …": logged in, but may not create it (1045 is the login itself).
    if (/denied for user .* to database/i.test(message)) {
      throw new Error(
        `the drill could not create its scratch database on ${where} (${message}): the user needs the CREATE and DROP privileges on \`${scratchDatabasePrefix}%\`, or set jobs[].drill.databaseServer: temporary; nothing was created`,
        { cause: err },
      )
    }
    throw new Error(`the drill could not connect to the configured server ${where}: ${message}; nothing was created`, { cause: err })
  }
  options.log('info', `created scratch database ${scratch} on ${where}`)
  try {
    const differences: string[] = []
    await restoreMysql(createReadStream(path), { ...connection, database: scratch }, { overwrite: false, signal }).catch((err: Error) => {
      if (signal.aborted) throw signal.reason
      differences.push(`${entry}: the restore into ${scratch} failed: ${err.message}`)
    })
    const found: Record<string, number> = {}
    for (const [table, rows] of Object.entries(await countTables(connection, [scratch], signal))) {
      found[`${config.database}.${table.slice(scratch.length + 1)}`] = rows
    }
    differences.push(...compare(entry, expected, found, new Set([config.database!])))
    return { checked: `${entry}: restored into a scratch database on ${where}, ${Object.keys(found).length} table(s) and their row counts`, differences }
  } finally {
    // Dropped even after a cancel: a fresh signal, the drill's own may be aborted.
    await mysqlQuery(connection, `DROP DATABASE IF EXISTS ${quoteMysqlName(scratch)}`, new AbortController().signal).then(
      () => options.log('info', `dropped scratch database ${scratch}`),
      (err: Error) => options.log('warn', `could not drop scratch database ${scratch} on ${where}: ${err.message} (the next drill drops it)`),
    )
  }
}

async function onTemporary(options: DrillCheckOptions<MysqlFamilyConfig>, entry: string, path: string, expected: Record<string, number>): Promise<DrillCheck> {
  const { config, signal } = options
  const server = await startTemporaryMysqlServer(join(options.scratch, 'server'), signal)
  options.log('info', 'started a temporary server in the scratch folder')
  try {
    const differences: string[] = []
    const database = config.allDatabases ? undefined : config.database
    await restoreMysql(createReadStream(path), { ...server.connection, database }, { overwrite: true, signal }).catch((err: Error) => {
      if (signal.aborted) throw signal.reason
      differences.push(`${entry}: the restore into the temporary server failed: ${err.message}`)
    })
    const schemas = [...new Set(Object.keys(expected).map((key) => key.slice(0, key.indexOf('.'))))]
    if (database && !schemas.includes(database)) schemas.push(database)
    const found = await countTables(server.connection, schemas, signal)
    differences.push(...compare(entry, expected, found, new Set(schemas)))
    return { checked: `${entry}: restored into a temporary server, ${Object.keys(found).length} table(s) and their row counts`, differences }
  } finally {
    await server.stop()
    options.log('info', 'stopped the temporary server')
  }
}

export const mysqlDrill: SourceDrill<MysqlFamilyConfig> = {
  async check(options) {
    const entry = mysqlDumpEntryName(options.config)
    const file = options.files.find((f) => f.name === entry)
    if (!file) return { checked: entry, differences: [`${entry}: not in the snapshot`] }
    const expected = (options.recorded as MysqlRecord | undefined)?.tables
    if (!expected) return { checked: entry, differences: [`${entry}: the snapshot's record holds no tables for source "${options.config.name}"`] }
    return options.databaseServer === 'temporary' ? onTemporary(options, entry, file.path, expected) : onConfigured(options, entry, file.path, expected)
  },
}
