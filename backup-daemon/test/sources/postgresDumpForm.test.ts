/**
 * @module test/sources/postgresDumpForm
 * Issue 42: the form of a PostgreSQL dump (`dumpCompression`). Into a restic repository the dump goes
 * uncompressed (`pg_dump --format=custom --compress=0`, `auto`), so the second run of an unchanged database
 * adds about one chunk; that dump restores (`restore --into-database`) and drills; a dump written the old way
 * (`dumpCompression: pg_dump`, pg_dump's zlib) still restores and drills; a job whose only copies are plain `tar`
 * archives keeps pg_dump's compression. A real cluster (Debian's `postgresql`) and a real restic repository:
 * either missing fails the test naming the package.
 */
import { expect } from 'chai'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pgDumpArgs } from '../../src/sources/postgresql/pgDumpArgs.js'
import { postgresqlSource } from '../../src/sources/postgresql/index.js'
import { tempDir } from '../engine/helpers.js'
import { requireRestic } from '../support/requireRestic.js'
import { runCli } from '../support/runCli.js'
import { startPostgres, type PostgresCluster } from './support/postgresCluster.js'

/** `source "pg": N MiB read, M MiB added` of a run's log, as numbers. */
function readAdded(out: string): { read: number; added: number; chunks: number } {
  const match = /source "pg": ([\d.]+) MiB read, ([\d.]+) MiB added to the repository \((\d+) new chunk/.exec(out)
  if (!match) throw new Error(`no "read, added" line in:\n${out}`)
  return { read: Number(match[1]), added: Number(match[2]), chunks: Number(match[3]) }
}

describe('sources/postgresql: the dump form into restic (dumpCompression)', function () {
  this.timeout(120_000)
  let pg: PostgresCluster | undefined
  let tmp: Awaited<ReturnType<typeof tempDir>>
  let file: string
  const env = { RESTIC_TEST_PASSWORD: 'dump form pass' }
  const cli = (...args: string[]) => runCli([...args, '--config', file], { cwd: tmp.dir, env })
  const checksum = () => pg!.sql('shop', "SELECT count(*), md5(string_agg(id || item || note, ',' ORDER BY id)) FROM orders")
  let expected = ''

  before(async () => {
    await requireRestic()
    tmp = await tempDir('bd-pg-form-')
    pg = await startPostgres()
    await pg.sql('postgres', 'CREATE DATABASE shop')
    // About 30 MB of rows as COPY text (about 12 MB compressed by pg_dump's zlib).
    await pg.sql(
      'shop',
      "CREATE TABLE orders (id int PRIMARY KEY, item text, note text); INSERT INTO orders SELECT g, 'order ' || g || ' ' || md5(g::text) || md5((g * 7)::text), 'note ' || (g % 97) FROM generate_series(1, 300000) g; CREATE TABLE customers (id int PRIMARY KEY, name text); INSERT INTO customers SELECT g, 'customer ' || g FROM generate_series(1, 500) g",
    )
    expected = await checksum()
    const source = (extra = '') =>
      `{ type: postgresql, name: pg, database: shop, host: ${pg!.socketDir}, port: ${pg!.port}, user: ${pg!.superuser}, pgDump: ${join(pg!.bin, 'pg_dump')}${extra} }`
    file = join(tmp.dir, 'backup-daemon.yaml')
    await writeFile(
      file,
      `dataDir: ./data
jobs:
  - name: shop
    drill: { databaseServer: configured }
    sources: [${source()}]
    storages: [{ type: restic, name: dedup, repository: ./repo, password: env:RESTIC_TEST_PASSWORD }]
  - name: old
    drill: { databaseServer: configured }
    sources: [${source(', dumpCompression: pg_dump')}]
    storages: [{ type: restic, name: dedup, repository: ./repo-old, password: env:RESTIC_TEST_PASSWORD }]
  - name: archive
    compression: tar
    sources: [${source()}]
    storages: [{ type: local, name: disk, path: ./store }]
`,
    )
  })
  after(async () => {
    await pg?.stop()
    await tmp?.remove()
  })

  /** Drills the job, then undoes part of the table, restores the job's newest snapshot over it and checks the rows came back. */
  async function drillsAndRestoresNewest(job: string): Promise<void> {
    const drill = await cli('drill', job)
    expect(drill.code, drill.out).to.equal(0)
    expect(drill.out).to.match(/source "pg": pg\/shop\.dump: restored into a scratch database .*2 table\(s\) and their row counts/)
    const listed = await cli('snapshots', job, '--json')
    expect(listed.code, listed.out).to.equal(0)
    const name = JSON.parse(listed.out.trim().split('\n')[0]!).name as string
    await pg!.sql('shop', "DELETE FROM orders WHERE id % 3 = 0; UPDATE orders SET note = 'changed'")
    const restore = await cli('restore', job, name, '--into-database', '--force')
    expect(restore.code, restore.out).to.equal(0)
    expect(restore.out).to.include('restored source "pg" into database shop')
    expect(await checksum()).to.equal(expected)
  }

  it('an unchanged database adds at most 2 new chunks on the second run; the uncompressed dump restores and drills', async () => {
    const first = await cli('run', 'shop')
    expect(first.code, first.out).to.equal(0)
    expect(first.out).to.include('pg_dump of database "shop" (custom format, uncompressed)')
    const second = await cli('run', 'shop')
    expect(second.code, second.out).to.equal(0)
    const { read, added, chunks } = readAdded(second.out)
    // The uncompressed dump is read whole (its rows as COPY text: over 25 MiB) and adds about one chunk of restic's.
    expect(read, second.out).to.be.greaterThan(25)
    // The target: at most 2 chunks (restic's are 512 KiB to 8 MiB, about 1 MiB on average), whatever the database's size.
    expect(chunks, second.out).to.be.at.most(2)
    expect(added, second.out).to.be.below(16)
    await drillsAndRestoresNewest('shop')
  })

  it('a dump written compressed (dumpCompression: pg_dump, the form before) still restores and drills', async () => {
    const run = await cli('run', 'old')
    expect(run.code, run.out).to.equal(0)
    expect(run.out).to.include("(custom format, pg_dump's compression)")
    // pg_dump's zlib: well under half the uncompressed dump.
    expect(readAdded(run.out).read, run.out).to.be.below(15)
    await drillsAndRestoresNewest('old')
  })

  it('a job whose only copies are plain tar archives keeps pg_dump compression', async () => {
    const run = await cli('run', 'archive')
    expect(run.code, run.out).to.equal(0)
    expect(run.out).to.include('pg_dump of database "shop" (custom format, pg_dump\'s compression)')
  })
})

describe('sources/postgresql: dumpCompression (no server needed)', () => {
  const base = { type: 'postgresql', name: 'pg', database: 'shop' } as const

  it('auto leaves pg_dump compression off only when the job compresses or deduplicates; none and pg_dump force it; params win', () => {
    expect(pgDumpArgs(base, {}, undefined, true).args).to.include('--compress=0')
    expect(pgDumpArgs(base, {}, undefined, false).args).not.to.include('--compress=0')
    expect(pgDumpArgs(base, {}).args, 'no context: as before').not.to.include('--compress=0')
    expect(pgDumpArgs({ ...base, dumpCompression: 'none' }, {}).args).to.include('--compress=0')
    expect(pgDumpArgs({ ...base, dumpCompression: 'pg_dump' }, {}, undefined, true).args).not.to.include('--compress=0')
    // Kept in the custom format (pg_restore, drills); a `--compress` in params comes after ours, so pg_dump takes it.
    const args = pgDumpArgs({ ...base, params: ['--compress=9'] }, {}, undefined, true).args
    expect(args).to.include('--format=custom')
    expect(args.indexOf('--compress=9')).to.be.greaterThan(args.indexOf('--compress=0'))
  })

  it('validates dumpCompression', () => {
    const parse = (value: unknown) => postgresqlSource.configSchema.safeParse({ ...base, dumpCompression: value }).success
    expect(parse('auto')).to.equal(true)
    expect(parse('none')).to.equal(true)
    expect(parse('pg_dump')).to.equal(true)
    expect(parse('gzip')).to.equal(false)
    expect(parse(0)).to.equal(false)
  })
})
