/**
 * @module sources/postgresql/drill
 * How a restore drill proves a `postgresql` source's snapshot restores (`SourceDrill`): its dump, restored
 * from the drill's scratch folder with pg_restore (`restorePostgres`, one transaction, no owners or grants:
 * the drill checks data, and a temporary server has no roles), into a scratch database
 * (`support/scratchDatabase`) that the drill creates and always drops, on the source's own server
 * (`databaseServer: configured`, with the source's credentials, which need CREATEDB) or on a temporary
 * server started from the installed binaries (`temporary`, `tempServer`). Its tables and exact row counts
 * (`countTables`) must be those recorded at dump time (`dumpSnapshot`). The source's own database is only
 * connected to, never written. A failed restore is a difference; a server that cannot be reached or a
 * refused CREATE DATABASE fails the check, with nothing created.
 */
import { createReadStream } from 'node:fs'
import { join } from 'node:path'
import { scratchDatabaseName, scratchDatabasePid, scratchDatabasePrefix } from '../support/scratchDatabase.js'
import type { DrillCheckOptions, SourceDrill } from '../types.js'
import { splitPassword, withDatabase } from './connectionString.js'
import { countTablesSql, parseCounts, type PostgresqlRecord } from './countTables.js'
import { psqlBinary } from './dumpSnapshot.js'
import { pgDumpEntryName } from './entryName.js'
import { psqlQuery, sqlIdentifier, sqlLiteral, type PsqlTarget } from './psql.js'
import { restorePostgres } from './restorePostgres.js'
import type { PostgresqlSourceConfig } from './schema.js'
import { findPostgresBin, startTempPostgres } from './tempServer.js'
import { processAlive } from '../support/processAlive.js'

type Log = DrillCheckOptions['log']
const never = () => new AbortController().signal

/** Drops a scratch database, its sessions too (PostgreSQL 13+; plain DROP before). Never cancelled. */
async function dropDatabase(admin: PsqlTarget, name: string): Promise<void> {
  const drop = `DROP DATABASE IF EXISTS ${sqlIdentifier(name)}`
  await psqlQuery(admin, `${drop} WITH (FORCE);`, never()).catch(() => psqlQuery(admin, `${drop};`, never()))
}

/** Drops the scratch databases of drills whose process is gone (killed mid-drill); the first query, so it also proves the server answers. */
async function dropLeftovers(admin: PsqlTarget, log: Log, signal: AbortSignal): Promise<void> {
  const like = sqlLiteral(`${scratchDatabasePrefix.replace(/_/g, '\\_')}%`)
  const names = (await psqlQuery(admin, `SELECT datname FROM pg_catalog.pg_database WHERE datname LIKE ${like};`, signal)).split('\n').filter(Boolean)
  for (const name of names) {
    const pid = scratchDatabasePid(name)
    if (!pid || pid === process.pid || processAlive(pid)) continue
    try {
      await dropDatabase(admin, name)
      log('warn', `dropped scratch database ${name}, left by a drill that did not finish (process ${pid} is gone)`)
    } catch (err) {
      log('warn', `could not drop scratch database ${name}, left by a drill that did not finish: ${(err as Error).message}`)
    }
  }
}

/** Restores the dump into `target` (an empty database) and counts its tables' rows. */
async function restoreAndCount(dump: string, target: PsqlTarget, pgRestore: string, signal: AbortSignal): Promise<Record<string, number>> {
  const { database, host, port, user, password } = target
  signal.throwIfAborted()
  await restorePostgres(
    createReadStream(dump),
    { database, ...(host && { host }), ...(port !== undefined && { port }), ...(user && { user }), ...(password !== undefined && { password }) },
    { noOwner: true, params: ['--no-privileges'], pgRestore, signal },
  )
  return parseCounts(await psqlQuery(target, countTablesSql(), signal))
}

/** On the source's own server: a scratch database created with its credentials, restored, counted, dropped. */
async function onConfiguredServer(dump: string, { config, log, signal }: DrillCheckOptions<PostgresqlSourceConfig>) {
  const { database, host, port, user, password } = config
  const admin: PsqlTarget = { database, host, port, user, password, psql: psqlBinary(config) }
  const server = `${host ?? 'the local socket'}${port !== undefined ? ` port ${port}` : ''}`
  await dropLeftovers(admin, log, signal).catch((err: Error) => {
    signal.throwIfAborted()
    throw new Error(`cannot reach the PostgreSQL server of source "${config.name}" (${server}): ${err.message}; nothing was created`)
  })
  const name = scratchDatabaseName()
  await psqlQuery(admin, `CREATE DATABASE ${sqlIdentifier(name)} TEMPLATE template0;`, signal).catch((err: Error) => {
    signal.throwIfAborted()
    if (/permission denied/i.test(err.message)) {
      throw new Error(
        `the drill may not create its scratch database on ${server} as the source's user (${err.message}): grant it CREATEDB, or set jobs[].drill.databaseServer: temporary to drill on a temporary server`,
      )
    }
    throw new Error(`creating the scratch database ${name} on ${server} failed: ${err.message}`)
  })
  log('info', `created scratch database ${name} on ${server}`)
  try {
    return {
      where: `scratch database on ${server}`,
      counts: await restoreAndCount(dump, { ...admin, database: withDatabase(database, name) }, psqlBinary(config, 'pg_restore'), signal),
    }
  } finally {
    await dropDatabase(admin, name).then(
      () => log('info', `dropped scratch database ${name}`),
      (err: Error) => log('warn', `could not drop scratch database ${name} (the next drill drops it): ${err.message}`),
    )
  }
}

/** On a temporary server of the installed binaries, stopped and removed afterwards. */
async function onTemporaryServer(dump: string, { config, scratch, log, signal }: DrillCheckOptions<PostgresqlSourceConfig>) {
  const bin = await findPostgresBin(config.pgDump)
  const server = await startTempPostgres({ bin, scratch, signal, log: (message) => log('info', message) })
  try {
    const target: PsqlTarget = { database: 'postgres', host: server.socketDir, port: server.port, user: server.user, psql: join(bin, 'psql') }
    const name = scratchDatabaseName()
    await psqlQuery(target, `CREATE DATABASE ${sqlIdentifier(name)} TEMPLATE template0;`, signal)
    return { where: `temporary server (${bin})`, counts: await restoreAndCount(dump, { ...target, database: name }, join(bin, 'pg_restore'), signal) }
  } finally {
    await server.stop()
    log('info', 'stopped and removed the temporary server')
  }
}

/** Every difference between the restored counts and the recorded ones, each naming the table. */
export function compareCounts(entry: string, found: Record<string, number>, expected: Record<string, number>): string[] {
  const differences: string[] = []
  for (const [table, rows] of Object.entries(expected)) {
    const restored = found[table]
    if (restored === undefined) differences.push(`${entry}: table "${table}" is missing (recorded with ${rows} row(s))`)
    else if (restored !== rows) differences.push(`${entry}: table "${table}" has ${restored} row(s), the backup recorded ${rows}`)
  }
  for (const table of Object.keys(found)) if (!(table in expected)) differences.push(`${entry}: table "${table}" was not recorded at backup`)
  return differences
}

export const postgresqlDrill: SourceDrill<PostgresqlSourceConfig> = {
  async check(options) {
    const { config, files, signal } = options
    const entry = pgDumpEntryName(config.name, splitPassword(config.database).label)
    const file = files.find((f) => f.name === entry)
    if (!file) return { checked: entry, differences: [`${entry}: not in the snapshot`] }
    const record = options.recorded as PostgresqlRecord | undefined
    let restored: { where: string; counts: Record<string, number> }
    try {
      restored = options.databaseServer === 'temporary' ? await onTemporaryServer(file.path, options) : await onConfiguredServer(file.path, options)
    } catch (err) {
      signal.throwIfAborted()
      const message = (err as Error).message
      // pg_restore's own failure is the snapshot's (truncated, corrupted); anything else is the drill's.
      if (/^pg_restore exited/.test(message)) return { checked: entry, differences: [`${entry}: the restore failed: ${message}`] }
      throw err
    }
    const tables = Object.keys(restored.counts).length
    const checked = `${entry}: restored into a ${restored.where}, ${tables} table(s)`
    if (record?.uncounted) return { checked: `${checked} (row counts not compared: ${record.uncounted})`, differences: [] }
    if (!record?.tables) return { checked, differences: [`${entry}: the snapshot's record holds no tables for source "${config.name}"`] }
    return { checked: `${checked} and their row counts`, differences: compareCounts(entry, restored.counts, record.tables) }
  },
}
