/**
 * `backup-daemon restore JOB SNAPSHOT --into-database` for a `postgresql` source, as child processes
 * against a real PostgreSQL cluster from Debian's packages (failing, naming the package, when none is installed):
 * the run's dump goes back through its kind's restore (`SourceFactory.restore`, in `src/sources/<kind>/`) into the source's database.
 */
import { expect } from 'chai'
import { readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { startPostgres, type PostgresCluster } from '../sources/support/postgresCluster.js'
import { tempDir } from '../engine/helpers.js'
import { runCli } from '../support/runCli.js'

const cli = (args: string[], cwd: string, env: Record<string, string>) => runCli(args, { cwd, env })

describe('backup-daemon restore --into-database (postgresql)', function () {
  this.timeout(180_000)
  let pg: PostgresCluster | undefined
  let tmp: Awaited<ReturnType<typeof tempDir>>
  before(async () => {
    tmp = await tempDir()
    pg = await startPostgres()
  })
  after(async () => {
    await pg?.stop()
    await tmp?.remove()
  })

  it('backs up with run, then restores the dropped rows with --into-database --force (encrypted, zstd)', async () => {
    await pg!.sql('postgres', 'CREATE DATABASE shop')
    await pg!.sql('shop', "CREATE TABLE orders (id int PRIMARY KEY, item text); INSERT INTO orders SELECT g, 'item ' || g FROM generate_series(1, 1500) g")
    const expected = await pg!.sql('shop', "SELECT count(*), md5(string_agg(item, ',' ORDER BY id)) FROM orders")
    const file = join(tmp.dir, 'backup-daemon.yaml')
    await writeFile(
      file,
      `dataDir: ./data
jobs:
  - name: shop
    compression: tar.zst
    encryption: { type: age, passphrase: env:PG_TEST_PASSPHRASE }
    sources:
      - type: postgresql
        name: pg
        database: shop
        host: ${pg!.socketDir}
        port: ${pg!.port}
        user: ${pg!.superuser}
        password: env:PG_TEST_PASSWORD
        pgDump: ${join(pg!.bin, 'pg_dump')}
    storages: [{ type: local, name: disk, path: ./backups }]
`,
    )
    const env = { PG_TEST_PASSPHRASE: 'pg-restore-passphrase', PG_TEST_PASSWORD: pg!.password }
    const backup = await cli(['run', 'shop', '--config', file], tmp.dir, env)
    expect(backup.code, backup.out).to.equal(0)
    const snapshot = (await readdir(join(tmp.dir, 'backups/shop'))).find((n) => n.endsWith('.manifest.json'))!.slice(0, -'.manifest.json'.length)
    expect(snapshot).to.match(/\.tar\.zst\.age$/)

    await pg!.sql('shop', 'DELETE FROM orders WHERE id % 3 = 0; UPDATE orders SET item = upper(item)')
    expect(await pg!.sql('shop', "SELECT count(*), md5(string_agg(item, ',' ORDER BY id)) FROM orders")).to.not.equal(expected)
    const restore = await cli(['restore', 'shop', snapshot, '--config', file, '--into-database', '--force'], tmp.dir, env)
    expect(restore.code, restore.out).to.equal(0)
    expect(restore.out).to.include(`${snapshot}: OK (1 part(s)`)
    expect(restore.out).to.include('restored source "pg" into database shop')
    expect(await pg!.sql('shop', "SELECT count(*), md5(string_agg(item, ',' ORDER BY id)) FROM orders")).to.equal(expected)
    expect(restore.out).to.not.include(pg!.password)
  })
})

describe('backup-daemon restore --into-database (mongodb)', function () {
  this.timeout(180_000)
  it('backs up one database with run and restores it after the collection was emptied', async function () {
    const uri = process.env.MONGODB_URI
    if (!uri) {
      console.log('    skipped: MONGODB_URI is not set (no MongoDB server can run on this machine)')
      this.skip()
    }
    const { MongoClient } = await import('mongodb')
    const client = await new MongoClient(uri).connect()
    const tmp = await tempDir()
    const database = `bd_restore_${Date.now()}`
    try {
      const posts = client.db(database).collection<{ _id: number; title: string }>('posts')
      await posts.insertMany(Array.from({ length: 300 }, (_, i) => ({ _id: i, title: `post ${i}` })))
      const file = join(tmp.dir, 'backup-daemon.yaml')
      await writeFile(
        file,
        `dataDir: ./data\njobs:\n  - name: mongo\n    sources: [{ type: mongodb, name: m, uri: env:MONGODB_URI, database: ${database} }]\n    storages: [{ type: local, name: disk, path: ./backups }]\n`,
      )
      const backup = await cli(['run', 'mongo', '--config', file], tmp.dir, {})
      expect(backup.code, backup.out).to.equal(0)
      const snapshot = (await readdir(join(tmp.dir, 'backups/mongo'))).find((n) => n.endsWith('.manifest.json'))!.slice(0, -'.manifest.json'.length)
      await posts.deleteMany({})
      const restore = await cli(['restore', 'mongo', snapshot, '--config', file, '--into-database', '--force'], tmp.dir, {})
      expect(restore.code, restore.out).to.equal(0)
      expect(await posts.countDocuments()).to.equal(300)
      expect(await posts.findOne({ _id: 7 })).to.deep.equal({ _id: 7, title: 'post 7' })
    } finally {
      await client
        .db(database)
        .dropDatabase()
        .catch(() => undefined)
      await client.close()
      await tmp.remove()
    }
  })
})
