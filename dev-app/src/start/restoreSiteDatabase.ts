/**
 * @module start/restoreSiteDatabase
 * Where `npm run restore-site` puts the snapshot's database, by the dev-app's database kind:
 * - SQLite: the snapshot's file becomes `NEW/db/cms.db`.
 * - PostgreSQL: the dump (`database/<db>.dump`) is restored with `pg_restore` into the database that
 *   `--database-uri` names, on any server the CMS's role can reach. It must be new (created here, which
 *   needs CREATEDB as the CMS's own first start does) or empty; the live site's database is refused. The
 *   restore runs in one transaction without owners or grants, so the URI's role owns what it restores and a
 *   failure leaves the database empty. The password goes to psql and pg_restore in `PGPASSWORD`, never on
 *   a command line, and is shown nowhere.
 * MongoDB is not handled here: restore it with the daemon's `restore --into-database` (dev-app/README.md).
 */
import { spawn } from 'node:child_process'
import { constants } from 'node:fs'
import { copyFile, lstat, readdir } from 'node:fs/promises'
import path from 'node:path'
import { databaseKind } from '../database/databaseKind.js'
import { postgresSourceFromUri } from './postgresSource.js'

export interface SiteDatabase {
  /** The restored site's `DATABASE_URI`. */
  uri: string
  /** What to print of it (no password). */
  shown: string
  /** Refuses a target that is not new or empty, before anything is restored (PostgreSQL). */
  check(): Promise<void>
  /** Puts the database of the unpacked snapshot (`restore --to unpacked`) in place. */
  restore(unpacked: string): Promise<void>
}

/** The restored site's database: `NEW/db/cms.db`, or the PostgreSQL database `--database-uri` names. */
export function siteDatabase(options: { liveUri: string; target: string; databaseUri: string | undefined }): SiteDatabase {
  const kind = databaseKind(options.liveUri)
  if (kind === 'sqlite') {
    if (options.databaseUri) throw new Error('--database-uri is for a site on PostgreSQL; on SQLite the database goes to NEW/db/cms.db')
    const file = path.join(options.target, 'db', 'cms.db')
    return {
      uri: `file:${file}`,
      shown: file,
      check: async () => {},
      restore: async (unpacked) => copyFile(await regularFile(path.join(unpacked, 'database', 'cms.sqlite')), file, constants.COPYFILE_EXCL),
    }
  }
  if (kind === 'postgres') return postgresSite(options.liveUri, options.databaseUri)
  throw new Error('restore-site restores SQLite and PostgreSQL sites; on MongoDB restore it with backup-daemon restore --into-database (dev-app/README.md)')
}

/** A PostgreSQL URI's server, role, database name and the rest of its connection parameters. */
function parts(uri: string) {
  const source = postgresSourceFromUri(uri)
  const url = new URL(uri)
  const dbname = new URLSearchParams(url.search).get('dbname') ?? decodeURIComponent(url.pathname.replace(/^\//, ''))
  const server = `${source.host ?? 'localhost'}:${source.port ?? 5432}`
  return { source, dbname, server }
}

function postgresSite(liveUri: string, databaseUri: string | undefined): SiteDatabase {
  if (!databaseUri) {
    throw new Error(
      'the site runs on PostgreSQL: name the restored site’s database, e.g. --database-uri postgres://USER:PASSWORD@HOST:5432/cms_restored (a new or empty database)',
    )
  }
  if (databaseKind(databaseUri) !== 'postgres') throw new Error('--database-uri: not a postgres:// or postgresql:// URI')
  const target = parts(databaseUri)
  const live = parts(liveUri)
  if (!target.dbname) throw new Error('--database-uri: name the database (…/cms_restored)')
  if (target.server === live.server && target.dbname === live.dbname) {
    throw new Error(`--database-uri names the live site's database "${live.dbname}": give a new one`)
  }
  const { source } = target
  const env = { ...process.env, ...(source.password !== undefined && { PGPASSWORD: source.password }) }
  const connection = (database: string) => [
    ...(source.host ? ['-h', source.host] : []),
    ...(source.port ? ['-p', String(source.port)] : []),
    ...(source.user ? ['-U', source.user] : []),
    '-d',
    database,
  ]
  // The server's `postgres` database, with the URI's other parameters (sslmode…), to create the target.
  const maintenance = source.database.includes('=') ? source.database.replace(/^dbname='(?:[^'\\]|\\.)*'/, "dbname='postgres'") : 'postgres'
  const psql = (database: string, sql: string) => command('psql', ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', ...connection(database), '-c', sql], env)
  const literal = `'${target.dbname.replace(/'/g, "''")}'`
  const exists = async () => (await psql(maintenance, `SELECT 1 FROM pg_database WHERE datname = ${literal}`)).trim() === '1'
  const shown = `database "${target.dbname}" on ${target.server}`
  return {
    uri: databaseUri,
    shown,
    async check() {
      if (!(await exists())) return
      const tables = Number((await psql(source.database, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")).trim())
      if (tables > 0) throw new Error(`${shown} holds ${tables} table(s): give a new or empty database`)
    },
    async restore(unpacked) {
      const folder = path.join(unpacked, 'database')
      const dumps = (await readdir(folder)).filter((name) => name.endsWith('.dump'))
      if (dumps.length !== 1) throw new Error(`expected one PostgreSQL dump in the snapshot's database folder, found ${dumps.length}`)
      if (!(await exists())) await psql(maintenance, `CREATE DATABASE "${target.dbname.replace(/"/g, '""')}" TEMPLATE template0`)
      await command(
        'pg_restore',
        ['--no-owner', '--no-acl', '--single-transaction', '--exit-on-error', ...connection(source.database), await regularFile(path.join(folder, dumps[0]!))],
        env,
      )
    },
  }
}

/** Runs a PostgreSQL client; resolves with its stdout, rejects with its stderr (which never holds the password). */
function command(name: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(name, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()))
    child.on('error', (error: NodeJS.ErrnoException) =>
      reject(new Error(error.code === 'ENOENT' ? `${name} is not installed (Debian: apt-get install postgresql-client)` : `${name}: ${error.message}`)),
    )
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${name} exited ${code}: ${err.trim().slice(-2000)}`))))
  })
}

/** `file` when it is a regular file of the unpacked snapshot (a link the snapshot planted is never followed). */
export async function regularFile(file: string): Promise<string> {
  const info = await lstat(file).catch(() => undefined)
  if (!info?.isFile())
    throw new Error(`the snapshot has no file ${path.basename(file)} where the database belongs (${info ? 'a link or another kind of entry' : 'missing'})`)
  return file
}
