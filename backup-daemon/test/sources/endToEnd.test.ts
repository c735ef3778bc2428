/**
 * Database sources through the engine's archive writer into remote storages and back: the snapshot is
 * read from the storage, the database's entry extracted from the tar.gz, and restored with the restore
 * functions, so "restore reproduces the data" is checked on the bytes a real storage returned.
 */
import { expect } from 'chai'
import { createRequire } from 'node:module'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough, type Readable } from 'node:stream'
import { createGunzip } from 'node:zlib'
import tar from 'tar-stream'
import { createArchive } from '../../src/archive/createArchive.js'
import { writeSnapshot } from '../../src/repository/archives/writeSnapshot.js'
import { listCatalog } from '../../src/repository/archives/catalog.js'
import { restorePostgres } from '../../src/sources/postgresql/restorePostgres.js'
import { restoreSqlite } from '../../src/sources/sqlite/restoreSqlite.js'
import { PostgresqlSource } from '../../src/sources/postgresql/index.js'
import { SqliteSource } from '../../src/sources/sqlite/index.js'
import type { Source } from '../../src/sources/types.js'
import { hostStorage } from '../../src/storages/host/index.js'
import { s3Storage } from '../../src/storages/s3/index.js'
import type { Storage } from '../../src/storages/types.js'
import { startHostEmulator, type Emulator } from '../storages/support/hostEmulator.js'
import { startS3rver, type RunningS3 } from '../storages/support/s3rver.js'
import { requirePostgresBin, startPostgresCluster, type PostgresCluster } from './support/postgresCluster.js'

const never = () => new AbortController().signal
const context = { log: () => {} }

/** Backs `source` up into every storage, then opens the snapshot on `from` and returns the entry named `entry`. */
async function backupAndExtract(source: Source, storages: Storage[], from: Storage, entry: string): Promise<Readable> {
  const createdAt = new Date()
  const name = `e2e-${createdAt.toISOString().replace(/[:.]/g, '-')}.tar.gz`
  await writeSnapshot({
    archive: createArchive([source], { compression: 'tar.gz', signal: never() }),
    storages,
    job: 'e2e',
    name,
    compression: 'tar.gz',
    createdAt,
    signal: never(),
  })
  const { snapshots } = await listCatalog(from, 'e2e')
  const snapshot = snapshots.find((s) => s.view.name === name)
  expect(snapshot, 'snapshot listed').to.not.equal(undefined)
  const extract = tar.extract()
  const found = new PassThrough()
  let seen = false
  extract.on('entry', (header, stream, next) => {
    if (header.name === entry) {
      seen = true
      stream.pipe(found)
      stream.on('end', next)
    } else {
      stream.on('end', next)
      stream.resume()
    }
  })
  extract.on('finish', () => {
    if (!seen) found.destroy(new Error(`no entry ${entry} in the snapshot`))
  })
  ;(await from.open(snapshot!.dataKeys[0]!)).pipe(createGunzip()).pipe(extract)
  return found
}

describe('database sources into remote storages and back (end to end)', function () {
  this.timeout(120_000)
  let dir: string
  let s3: RunningS3
  let emulator: Emulator
  let storages: Storage[]

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bd-e2e-'))
    s3 = await startS3rver()
    emulator = await startHostEmulator({ storage: { zoneName: 'z', accessKey: 'k' } })
    storages = [
      s3Storage.create(
        s3Storage.configSchema.parse({
          type: 's3',
          name: 's3',
          bucket: s3.bucket,
          endpoint: s3.endpoint,
          usePathStyle: true,
          accessKeyId: 'S3RVER',
          secretAccessKey: 'S3RVER',
        }),
      ),
      hostStorage.create(hostStorage.configSchema.parse({ type: 'host', name: 'host', endpoint: emulator.storage.endpoint, zoneName: 'z', accessKey: 'k' })),
    ]
  })
  after(async () => {
    await s3?.close()
    await emulator?.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('sqlite -> s3 and host -> restoreSqlite gives the same rows', async () => {
    interface Db {
      exec(sql: string): void
      prepare(sql: string): { get(): Record<string, unknown> }
      close(): void
    }
    const Database = createRequire(import.meta.url)('libsql') as new (path: string) => Db
    const path = join(dir, 'cms.db')
    const db = new Database(path)
    db.exec("CREATE TABLE posts (id INTEGER PRIMARY KEY, title TEXT); INSERT INTO posts (title) SELECT 'post ' || value FROM generate_series(1, 3000)")
    db.close()
    for (const from of storages) {
      const entry = await backupAndExtract(new SqliteSource('cms', path, context), storages, from, 'cms/cms.sqlite')
      const restored = join(dir, `restored-${from.name}.db`)
      await restoreSqlite(entry, restored)
      const check = new Database(restored)
      expect(check.prepare('SELECT count(*) AS n, max(title) AS last FROM posts').get()).to.deep.equal({ n: 3000, last: 'post 999' })
      check.close()
    }
  })

  describe('postgresql', () => {
    let pg: PostgresCluster | undefined
    let bin: string | undefined
    before(async () => {
      bin = await requirePostgresBin()
      pg = await startPostgresCluster(bin)
    })
    after(async () => {
      await pg?.stop()
    })

    it('postgresql -> host and s3 -> restorePostgres gives the same rows', async () => {
      await pg!.sql('postgres', 'CREATE DATABASE app')
      await pg!.sql('app', 'CREATE TABLE t (id int PRIMARY KEY, v text); INSERT INTO t SELECT g, md5(g::text) FROM generate_series(1, 2000) g')
      const expected = await pg!.sql('app', "SELECT count(*), md5(string_agg(v, ',' ORDER BY id)) FROM t")
      const source = () =>
        new PostgresqlSource(
          { type: 'postgresql', name: 'pg', database: 'app', host: pg!.socketDir, port: pg!.port, user: 'postgres', pgDump: join(bin!, 'pg_dump') },
          context,
        )
      for (const from of [...storages].reverse()) {
        const entry = await backupAndExtract(source(), storages, from, 'pg/app.dump')
        const target = `back_${from.name}`
        await pg!.sql('postgres', `CREATE DATABASE ${target}`)
        await restorePostgres(entry, { database: target, host: pg!.socketDir, port: pg!.port, user: 'postgres' }, { pgRestore: join(bin!, 'pg_restore') })
        expect(await pg!.sql(target, "SELECT count(*), md5(string_agg(v, ',' ORDER BY id)) FROM t")).to.equal(expected)
      }
    })
  })
})
