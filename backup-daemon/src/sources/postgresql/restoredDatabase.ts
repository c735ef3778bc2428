/**
 * @module sources/postgresql/restoredDatabase
 * A `postgresql` dump restored for a drill, kept until closed: a scratch database (`support/scratchDatabase`)
 * on the source's own server (`databaseServer: configured`, with the source's credentials, which need
 * CREATEDB) or on a temporary server started from the installed binaries (`temporary`, `tempServer`), the
 * dump restored into it with pg_restore (`restorePostgres`, one transaction, no owners or grants: a drill
 * reads data, and a temporary server has no roles). Shared by the kind's drill check (`drill`, which counts
 * the rows) and its reader for the CMS check (`readRestoredPostgres`, which selects columns): `close` drops
 * the database or stops the server, and is never cancelled. The source's own database is only connected to.
 */
import { createReadStream } from 'node:fs'
import { join } from 'node:path'
import { processAlive } from '../support/processAlive.js'
import { scratchDatabaseName, scratchDatabasePid, scratchDatabasePrefix } from '../support/scratchDatabase.js'
import type { DrillCheckOptions } from '../types.js'
import { withDatabase } from './connectionString.js'
import { psqlBinary } from './dumpSnapshot.js'
import { psqlQuery, sqlIdentifier, sqlLiteral, type PsqlTarget } from './psql.js'
import { restorePostgres } from './restorePostgres.js'
import type { PostgresqlSourceConfig } from './schema.js'
import { findPostgresBin, startTempPostgres } from './tempServer.js'

type Log = DrillCheckOptions['log']
export type RestoreOptions = Pick<DrillCheckOptions<PostgresqlSourceConfig>, 'config' | 'scratch' | 'databaseServer' | 'log' | 'signal'>

/** A restored dump: where psql reaches it, where it is (in words), and how it goes away. */
export interface RestoredDatabase {
  target: PsqlTarget
  where: string
  close(): Promise<void>
}

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

/** Restores the dump into `target` (an empty database). */
async function restoreInto(dump: string, target: PsqlTarget, pgRestore: string, signal: AbortSignal): Promise<void> {
  const { database, host, port, user, password } = target
  signal.throwIfAborted()
  await restorePostgres(
    createReadStream(dump),
    { database, ...(host && { host }), ...(port !== undefined && { port }), ...(user && { user }), ...(password !== undefined && { password }) },
    { noOwner: true, params: ['--no-privileges'], pgRestore, signal },
  )
}

/** On the source's own server: a scratch database created with its credentials, restored; dropped on close. */
async function onConfiguredServer(dump: string, { config, log, signal }: RestoreOptions): Promise<RestoredDatabase> {
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
  let closed: Promise<void> | undefined
  const close = () =>
    (closed ??= dropDatabase(admin, name).then(
      () => log('info', `dropped scratch database ${name}`),
      (err: Error) => log('warn', `could not drop scratch database ${name} (the next drill drops it): ${err.message}`),
    ))
  const target = { ...admin, database: withDatabase(database, name) }
  try {
    await restoreInto(dump, target, psqlBinary(config, 'pg_restore'), signal)
  } catch (err) {
    await close()
    throw err
  }
  return { target, where: `scratch database on ${server}`, close }
}

/** On a temporary server of the installed binaries, stopped and removed on close. */
async function onTemporaryServer(dump: string, { config, scratch, log, signal }: RestoreOptions): Promise<RestoredDatabase> {
  const bin = await findPostgresBin(config.pgDump)
  const server = await startTempPostgres({ bin, scratch, signal, log: (message) => log('info', message) })
  let closed: Promise<void> | undefined
  const close = () => (closed ??= server.stop().then(() => log('info', 'stopped and removed the temporary server')))
  try {
    const admin: PsqlTarget = { database: 'postgres', host: server.socketDir, port: server.port, user: server.user, psql: join(bin, 'psql') }
    const name = scratchDatabaseName()
    await psqlQuery(admin, `CREATE DATABASE ${sqlIdentifier(name)} TEMPLATE template0;`, signal)
    const target = { ...admin, database: name }
    await restoreInto(dump, target, join(bin, 'pg_restore'), signal)
    return { target, where: `temporary server (${bin})`, close }
  } catch (err) {
    await close()
    throw err
  }
}

/** Restores `dump` where `databaseServer` says; the caller must `close` it (in a finally). */
export function openRestored(dump: string, options: RestoreOptions): Promise<RestoredDatabase> {
  return options.databaseServer === 'temporary' ? onTemporaryServer(dump, options) : onConfiguredServer(dump, options)
}
