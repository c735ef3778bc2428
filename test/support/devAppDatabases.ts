/**
 * @module test/support/devAppDatabases
 * The two databases the dev-app e2e scenario (`devAppScenario.ts`) runs against: SQLite (the default, a
 * file in the data folder) and PostgreSQL (a throwaway cluster from Debian's server binaries, with a CMS
 * role that is no superuser and whose password must be percent-encoded in the URI). The scenario is the
 * same; what differs sits here: how the CMS is pointed at the database, how SQL reaches the live one and a
 * restored copy, the daemon's log line for its dump, and what must never be shown.
 */
import { expect } from 'chai'
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { requirePostgresBin, startPostgresCluster, type PostgresCluster } from '../../backup-daemon/test/sources/support/postgresCluster.js'
import { walk } from './files.js'

const run = promisify(execFile)

/** Rows as psql's unaligned, tuples-only output prints them: fields joined by `|`, rows by newlines. */
export type SqlQuery = (statement: string) => Promise<string>

export interface DevAppDatabase {
  /** As the test titles and `npm start` name it. */
  name: 'SQLite' | 'PostgreSQL'
  /** What `npm start` adds to its `data folder …` line. */
  startLabel: string
  /** The first start builds the admin panel: minutes on a loaded two-core machine. */
  timeoutMs: number
  readyTimeoutMs: number
  /** Strings that must appear in no log, response or config view (the database password). */
  secrets: string[]
  /** The daemon's log line for the database part of the `cms` job. */
  dumpLine: RegExp
  /** The query listing the database's tables, by name. */
  tablesSql: string
  /** Starts the database if it is a server; the environment that points the dev-app at it. */
  start(dataDir: string): Promise<Record<string, string>>
  stop(): Promise<void>
  /** SQL on the live CMS database. */
  live: SqlQuery
  /** What only this kind can show of a first start: the database created and owned as it should be. */
  checkCreated(): Promise<void>
  /** Loads the database part of a restored snapshot (the daemon's `restore --to <target>`) into a copy to query. */
  restore(target: string): Promise<SqlQuery>
  /**
   * Where `npm run restore-site` is to put the whole site's database when the kind needs naming it (a
   * server's: `--database-uri`), and SQL on it; undefined for SQLite, whose restore-site has its own test.
   */
  siteRestore?(): { uri: string; query: SqlQuery }
}

/** SQL through libsql on an SQLite file, printed like psql's unaligned output. */
async function sqliteQuery(file: string): Promise<SqlQuery> {
  const { createClient } = await import('@libsql/client')
  return async (statement) => {
    const db = createClient({ url: `file:${file}` })
    try {
      const { rows } = await db.execute(statement)
      return rows.map((row) => Array.from(row, (value) => (value === null ? '' : String(value))).join('|')).join('\n')
    } finally {
      db.close()
    }
  }
}

export function sqliteDatabase(): DevAppDatabase {
  let file = ''
  return {
    name: 'SQLite',
    startLabel: '',
    timeoutMs: 15 * 60_000,
    readyTimeoutMs: 12 * 60_000,
    secrets: [],
    dumpLine: /source "database": consistent copy of \S+cms\.db/,
    tablesSql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
    async start(dataDir) {
      // The dev-app's default: `file:<data folder>/db/cms.db` (dev-app/src/settings.ts).
      file = path.join(dataDir, 'db', 'cms.db')
      return {}
    },
    async stop() {},
    live: async (statement) => (await sqliteQuery(file))(statement),
    async checkCreated() {
      expect(existsSync(file), file).to.equal(true)
    },
    async restore(target) {
      // Database: the snapshot's SQLite file, queried as it is.
      const dbFile = walk(path.join(target, 'database')).find((f) => /\.(db|sqlite)$/.test(f))
      expect(dbFile, 'a database file in the snapshot').to.be.a('string')
      return sqliteQuery(dbFile!)
    },
  }
}

// A password that must be percent-encoded in the URI: the daemon's job must decode it, and never show it.
const cmsRole = 'cms_owner'
const cmsPassword = 'p@ss:w/rd%#?-e2e'

export function postgresDatabase(): DevAppDatabase {
  let pg: PostgresCluster | undefined
  const cluster = () => pg ?? expect.fail('the PostgreSQL cluster did not start')
  return {
    name: 'PostgreSQL',
    startLabel: ' (database: PostgreSQL)',
    // The first start builds the admin panel: up to twenty minutes on a loaded two-core machine.
    timeoutMs: 30 * 60_000,
    readyTimeoutMs: 25 * 60_000,
    secrets: [cmsPassword, encodeURIComponent(cmsPassword)],
    dumpLine: /pg_dump of database "cms"/,
    tablesSql: "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename",
    async start() {
      pg = await startPostgresCluster(await requirePostgresBin())
      // Not a superuser: the CMS creates its own database on first connect (CREATEDB) and owns its tables.
      await pg.sql('postgres', `CREATE ROLE ${cmsRole} LOGIN CREATEDB PASSWORD '${cmsPassword.replace(/'/g, "''")}'`)
      return { DATABASE_URI: `postgres://${cmsRole}:${encodeURIComponent(cmsPassword)}@127.0.0.1:${pg.port}/cms` }
    },
    async stop() {
      await pg?.stop()
    },
    live: (statement) => cluster().sql('cms', statement),
    async checkCreated() {
      // The database did not exist before the first start; the CMS role owns what it created.
      expect(await cluster().sql('postgres', "SELECT datname FROM pg_database WHERE datname = 'cms'")).to.equal('cms')
      expect(await cluster().sql('cms', "SELECT tableowner FROM pg_tables WHERE schemaname = 'public' AND tablename = 'posts'")).to.equal(cmsRole)
    },
    siteRestore() {
      const db = cluster()
      return {
        uri: `postgres://${cmsRole}:${encodeURIComponent(cmsPassword)}@127.0.0.1:${db.port}/cms_site`,
        query: (statement: string) => db.sql('cms_site', statement),
      }
    },
    async restore(target) {
      const dump = path.join(target, 'database', 'cms.dump')
      expect(existsSync(dump), `no database/cms.dump in the snapshot`).to.equal(true)
      const db = cluster()
      await db.sql('postgres', 'CREATE DATABASE cms_restored')
      const connection = ['-h', db.socketDir, '-p', String(db.port), '-U', db.superuser, '-d', 'cms_restored']
      await run(path.join(db.bin, 'pg_restore'), ['--no-owner', '--exit-on-error', ...connection, dump])
      return (statement) => db.sql('cms_restored', statement)
    },
  }
}
