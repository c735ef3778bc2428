/**
 * @module test/repository/restic/resticPostgres
 * A PostgreSQL dump into a restic repository (stdin, `pg.tar`) and back with `restore --into-database`
 * (a real cluster from Debian's packages; the test fails naming the package when none is installed); the
 * second dump of the unchanged database adds almost nothing (the dump's stable name and restic's chunks).
 */
import { expect } from 'chai'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { tempDir } from '../../engine/helpers.js'
import { startPostgres, type PostgresCluster } from '../../sources/support/postgresCluster.js'
import { runCli } from '../../support/runCli.js'
import { requireRestic } from '../../support/requireRestic.js'

describe('restic storage: a PostgreSQL dump backed up and restored', function () {
  this.timeout(240_000)
  let pg: PostgresCluster | undefined
  let tmp: Awaited<ReturnType<typeof tempDir>>
  before(async () => {
    await requireRestic()
    tmp = await tempDir('bd-restic-pg-')
    pg = await startPostgres()
  })
  after(async () => {
    await pg?.stop()
    await tmp?.remove()
  })

  it('runs twice (the second adds little), then restores dropped rows with --into-database --force', async () => {
    await pg!.sql('postgres', 'CREATE DATABASE shop')
    await pg!.sql(
      'shop',
      "CREATE TABLE orders (id int PRIMARY KEY, item text); INSERT INTO orders SELECT g, md5(g::text) || md5((g * 7)::text) || ' item ' || g FROM generate_series(1, 300000) g",
    )
    const expected = await pg!.sql('shop', "SELECT count(*), md5(string_agg(item, ',' ORDER BY id)) FROM orders")
    const file = join(tmp.dir, 'backup-daemon.yaml')
    await writeFile(
      file,
      `dataDir: ./data
jobs:
  - name: shop
    sources:
      - { type: postgresql, name: pg, database: shop, host: ${pg!.socketDir}, port: ${pg!.port}, user: ${pg!.superuser}, password: env:PG_TEST_PASSWORD, pgDump: ${join(pg!.bin, 'pg_dump')} }
    storages:
      - { type: restic, name: dedup, repository: ./repo, password: env:RESTIC_TEST_PASSWORD }
`,
    )
    const env = { PG_TEST_PASSWORD: pg!.password, RESTIC_TEST_PASSWORD: 'pg restic pass' }
    const cli = (...args: string[]) => runCli([...args, '--config', file], { cwd: tmp.dir, env })
    const first = await cli('run', 'shop')
    expect(first.code, first.out).to.equal(0)
    const second = await cli('run', 'shop')
    expect(second.code, second.out).to.equal(0)
    const [read, added] = /source "pg": ([\d.]+) MiB read, ([\d.]+) MiB added/.exec(second.out)!.slice(1).map(Number)
    expect(read, second.out).to.be.greaterThan(0)
    expect(added!, second.out).to.be.at.most(read! / 2)

    const name = JSON.parse((await cli('snapshots', 'shop', '--json')).out.trim().split('\n')[0]!).name as string
    await pg!.sql('shop', 'DELETE FROM orders WHERE id % 3 = 0; UPDATE orders SET item = upper(item)')
    const restore = await cli('restore', 'shop', name, '--into-database', '--force')
    expect(restore.code, restore.out).to.equal(0)
    expect(restore.out).to.include('restored source "pg" into database shop')
    expect(await pg!.sql('shop', "SELECT count(*), md5(string_agg(item, ',' ORDER BY id)) FROM orders")).to.equal(expected)
    expect(restore.out + first.out).to.not.include(pg!.password)
  })
})
