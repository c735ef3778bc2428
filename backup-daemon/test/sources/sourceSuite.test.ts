/**
 * The shared source suite (`test/support/runSourceSuite.ts`) for the sources that existed before it:
 * `local`, `sqlite`, `postgresql` (a throwaway cluster) and `mongodb` (skipped with its reason unless
 * `MONGODB_URI` names a server: none can run on this machine). The newer sources run it in their own
 * test files. Each database kind gives its restore target and its compare: the suite backs up, restores
 * through the registry (`restore/restoreDatabases`) and compares.
 */
import { expect } from 'chai'
import { createRequire } from 'node:module'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { MongoClient } from 'mongodb'
import { LocalSource } from '../../src/sources/local/index.js'
import { MongodbSource } from '../../src/sources/mongodb/index.js'
import { PostgresqlSource } from '../../src/sources/postgresql/index.js'
import { SqliteSource, type SqliteSourceConfig } from '../../src/sources/sqlite/index.js'
import { runSourceSuite, sourceSuiteTests } from '../support/runSourceSuite.js'
import { requirePostgresBin, startPostgresCluster, type PostgresCluster } from './support/postgresCluster.js'

const quiet = { log: () => {} }
/** Fixtures live under the machine's temp folder, not under the per-test TMPDIR the suite checks. */
const baseTmp = tmpdir()

let fixtures: string
before(async () => {
  fixtures = await mkdtemp(join(baseTmp, 'bd-suite-fixtures-'))
})
after(async () => {
  await rm(fixtures, { recursive: true, force: true })
})

runSourceSuite({
  title: 'sources/local',
  setup: async () => {
    const root = join(fixtures, 'tree')
    await mkdir(join(root, 'sub/deeper'), { recursive: true })
    await writeFile(join(root, 'small.txt'), 'hello\n')
    // Above the 256 KiB small-file threshold: streamed, not read at once.
    await writeFile(join(root, 'sub/big.bin'), randomBytes(3 << 20))
    await writeFile(join(root, 'sub/deeper/note.md'), '# note\n')
  },
  newSource: (context) => new LocalSource('files', join(fixtures, 'tree'), [], context),
  checkArchive: (entries) => {
    expect(entries.find((e) => e.name === 'files/sub/big.bin')?.size).to.equal(3 << 20)
  },
  failing: () => ({ source: new LocalSource('files', join(fixtures, 'missing'), [], quiet), message: /ENOENT|no such file/ }),
})

type SqliteDatabase = { exec(sql: string): void; prepare(sql: string): { all(): Record<string, unknown>[] }; close(): void }
const openSqlite = (path: string) => new (createRequire(import.meta.url)('libsql') as new (path: string) => SqliteDatabase)(path)

/** Every row of the fixture table, as text (the same rows give the same text). */
function sqliteRows(path: string): string {
  const db = openSqlite(path)
  try {
    return JSON.stringify(db.prepare('SELECT id, body FROM t ORDER BY id').all())
  } finally {
    db.close()
  }
}

runSourceSuite({
  title: 'sources/sqlite',
  setup: async () => {
    const db = openSqlite(join(fixtures, 'app.db'))
    db.exec(
      'CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) INSERT INTO t SELECT i, hex(randomblob(64)) FROM n',
    )
    db.close()
  },
  newSource: (context) => new SqliteSource('db', join(fixtures, 'app.db'), context),
  progress: /consistent copy of .*app\.db \(\d+ bytes\)/,
  checkArchive: (entries) => {
    expect(
      entries
        .find((e) => e.name === 'db/app.sqlite')
        ?.data.subarray(0, 15)
        .toString(),
    ).to.equal('SQLite format 3')
  },
  failing: () => ({ source: new SqliteSource('db', join(fixtures, 'missing.db'), quiet), message: /ENOENT|no such file/ }),
  restore: {
    // Into another file, then every row of both files compared.
    target: () => ({ type: 'sqlite', name: 'db', path: join(fixtures, 'restored.db') }),
    async compare(target) {
      expect(sqliteRows((target as SqliteSourceConfig).path)).to.equal(sqliteRows(join(fixtures, 'app.db')))
    },
  },
})

let pg: PostgresCluster | undefined
let pgBin: string | undefined
const pgConfig = (overrides: object = {}) => ({
  type: 'postgresql' as const,
  name: 'pg',
  database: 'shop',
  host: '127.0.0.1',
  port: pg!.port,
  user: 'postgres',
  password: pg!.password,
  pgDump: join(pgBin!, 'pg_dump'),
  ...overrides,
})

runSourceSuite({
  title: 'sources/postgresql',
  setup: async () => {
    pgBin = await requirePostgresBin()
    pg = await startPostgresCluster(pgBin)
    await pg.sql('postgres', 'CREATE DATABASE shop')
    await pg.sql(
      'shop',
      'CREATE TABLE items (id serial PRIMARY KEY, body text); INSERT INTO items (body) SELECT repeat(md5(g::text), 8) FROM generate_series(1, 20000) g',
    )
  },
  teardown: async () => {
    await pg?.stop()
  },
  newSource: (context) => new PostgresqlSource(pgConfig(), context),
  progress: /pg_dump of database "shop"/,
  checkArchive: (entries) => {
    expect(
      entries
        .find((e) => e.name === 'pg/shop.dump')
        ?.data.subarray(0, 5)
        .toString(),
    ).to.equal('PGDMP')
  },
  failing: () => ({ source: new PostgresqlSource(pgConfig({ database: 'nope' }), quiet), message: /database "nope" does not exist/ }),
  badCredentials: (context) => ({
    source: new PostgresqlSource(pgConfig({ password: 'wrong-Pg-secret-9' }), context),
    secret: 'wrong-Pg-secret-9',
    message: /password authentication failed/,
  }),
  restore: {
    // Into another (empty) database of the cluster, then every row of both compared.
    async target() {
      await pg!.sql('postgres', 'CREATE DATABASE shop_restored')
      return pgConfig({ database: 'shop_restored' })
    },
    async compare() {
      const rows = (database: string) => pg!.sql(database, "SELECT count(*), md5(string_agg(id || ':' || body, ',' ORDER BY id)) FROM items")
      expect(await rows('shop_restored')).to.equal(await rows('shop'))
    },
  },
})

const mongoUri = process.env.MONGODB_URI
const mongoDb = `bd_suite_${process.pid}`
let mongoItems: unknown[] = []
runSourceSuite({
  title: 'sources/mongodb',
  setup: async () => {
    if (!mongoUri) return
    const client = await new MongoClient(mongoUri).connect()
    await client
      .db(mongoDb)
      .collection('items')
      .insertMany(Array.from({ length: 5000 }, (_, i) => ({ i, body: 'x'.repeat(200) })))
    await client.close()
  },
  teardown: async () => {
    if (!mongoUri) return
    const client = await new MongoClient(mongoUri).connect()
    await client.db(mongoDb).dropDatabase()
    await client.close()
  },
  newSource: (context) => new MongodbSource({ type: 'mongodb', name: 'mongo', uri: mongoUri!, database: mongoDb }, context),
  failing: () => ({
    source: new MongodbSource({ type: 'mongodb', name: 'mongo', uri: 'mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=500', database: mongoDb }, quiet),
    message: /ECONNREFUSED|Server selection timed out|connect/,
  }),
  restore: {
    // The archive names its database: it goes back into the same one, emptied first, then compared.
    async target() {
      const client = await new MongoClient(mongoUri!).connect()
      mongoItems = await client
        .db(mongoDb)
        .collection('items')
        .find({}, { projection: { _id: 0 } })
        .sort({ i: 1 })
        .toArray()
      await client.db(mongoDb).dropDatabase()
      await client.close()
      return { type: 'mongodb', name: 'mongo', uri: mongoUri!, database: mongoDb }
    },
    async compare() {
      const client = await new MongoClient(mongoUri!).connect()
      try {
        const items = await client
          .db(mongoDb)
          .collection('items')
          .find({}, { projection: { _id: 0 } })
          .sort({ i: 1 })
          .toArray()
        expect(items).to.have.length(5000)
        expect(items).to.deep.equal(mongoItems)
      } finally {
        await client.close()
      }
    },
  },
  skip: mongoUri ? [] : [{ reason: 'MONGODB_URI is not set (no MongoDB server can run on this machine)', tests: sourceSuiteTests }],
})
