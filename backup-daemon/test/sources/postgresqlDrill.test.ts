/**
 * Restore drills of `postgresql` sources against a real PostgreSQL cluster: the dump records its tables and
 * row counts in pg_dump's own snapshot (excluded tables left out); a good dump drills and passes on the
 * configured server (a scratch database created and dropped) and on a temporary server (started, stopped,
 * removed); a dump that lost a row or a table, and a truncated dump, fail naming what differs; an unreachable
 * server or a role without CREATEDB fail clearly with nothing left; a killed drill's scratch database is
 * dropped by the next drill, and its temporary server stopped by the scratch sweep; and the real CLI drills a
 * job with a PostgreSQL source.
 *
 * Runs alone (scripts/run-tests.mjs): it checks the machine's temporary folder and nobody's processes, which another file's drills would add to.
 */
import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { buffer } from 'node:stream/consumers'
import { sweepDrillScratch } from '../../src/restore/drill/drillScratch.js'
import { PostgresqlSource, postgresqlSource, type PostgresqlSourceConfig } from '../../src/sources/postgresql/index.js'
import { withDatabase } from '../../src/sources/postgresql/connectionString.js'
import { patternRegex, selectingParam } from '../../src/sources/postgresql/countTables.js'
import { pgDumpArgs } from '../../src/sources/postgresql/pgDumpArgs.js'
import { findPostgresBin, startTempPostgres } from '../../src/sources/postgresql/tempServer.js'
import { scratchTempPrefix } from '../../src/sources/support/scratchProcess.js'
import type { DrillCheck } from '../../src/sources/types.js'
import type { SourceRecord } from '../../src/tar/snapshotRecord.js'
import { tempDir, waitFor } from '../engine/helpers.js'
import { entriesOf } from '../support/entriesOf.js'
import { freePort } from '../support/freePort.js'
import { runCli } from '../support/runCli.js'
import { nobodyFolder, noProcessOfNobody } from '../support/serviceUser.js'
import { startPostgres, type PostgresCluster } from './support/postgresCluster.js'
import { tcpSource } from './support/postgresSource.js'
import { processAlive } from '../../src/sources/support/processAlive.js'

const never = () => new AbortController().signal
/** The id of a process that has exited (a crashed drill's). */
const deadPid = () =>
  new Promise<number>((resolve) => {
    const child = spawn('true')
    child.once('close', () => resolve(child.pid!))
  })

describe('sources/postgresql drills (a real PostgreSQL cluster)', function () {
  this.timeout(180_000)
  let pg: PostgresCluster
  let bin: string
  let base: PostgresqlSourceConfig
  let tmp: Awaited<ReturnType<typeof tempDir>>
  const logs: string[] = []

  /** Dumps `config`; resolves with the dump written to a file and what the source recorded. */
  async function dump(config: PostgresqlSourceConfig, file: string): Promise<SourceRecord | undefined> {
    const source = new PostgresqlSource(config, { log: (_level, line) => logs.push(line) })
    for await (const entry of entriesOf(source, never())) if (entry.open) await writeFile(file, await buffer(entry.open(never())))
    return source.recorded()
  }
  const scratchDatabases = () => pg.sql('postgres', "SELECT datname FROM pg_database WHERE datname LIKE 'backup_daemon_drill_%'")
  async function check(
    file: string,
    recorded: SourceRecord | undefined,
    options: { config?: PostgresqlSourceConfig; databaseServer?: 'configured' | 'temporary'; scratch?: string; abortOn?: RegExp } = {},
  ): Promise<DrillCheck> {
    const abort = new AbortController()
    const scratch = options.scratch ?? join(tmp.dir, `scratch-${Math.random().toString(16).slice(2)}`)
    await mkdir(scratch, { recursive: true })
    return postgresqlSource.drill!.check({
      config: options.config ?? base,
      files: [{ name: 'pg/shop.dump', path: file }],
      recorded,
      scratch,
      databaseServer: options.databaseServer ?? 'configured',
      log: (_level, line) => {
        logs.push(line)
        if (options.abortOn?.test(line)) abort.abort(new Error('cancelled by the test'))
      },
      signal: abort.signal,
    })
  }

  before(async () => {
    pg = await startPostgres()
    bin = pg.bin
    tmp = await tempDir('bd-pgdrill-')
    await pg.sql('postgres', 'CREATE DATABASE shop')
    await pg.sql(
      'shop',
      `CREATE SCHEMA blog; CREATE TABLE blog.posts (id serial PRIMARY KEY, title text); CREATE TABLE public.tags (name text);
       CREATE TABLE public.audit_log (line text); CREATE VIEW public.recent AS SELECT * FROM blog.posts;
       INSERT INTO blog.posts (title) SELECT 'post ' || g FROM generate_series(1, 12) g; INSERT INTO public.tags VALUES ('a'), ('b');
       INSERT INTO public.audit_log SELECT 'line' FROM generate_series(1, 5)`,
    )
    base = { ...tcpSource(pg, 'shop'), excludeTables: ['audit_log'] }
  })
  after(async () => {
    await pg?.stop()
    await tmp?.remove()
  })

  it('records the dumped tables and exact row counts (excluded tables left out) in the snapshot pg_dump reads', async () => {
    const recorded = await dump(base, join(tmp.dir, 'good.dump'))
    expect(recorded).to.deep.equal({ tables: { 'blog.posts': 12, 'public.tags': 2 } })
    expect(logs.join('\n')).to.match(/2 table\(s\), 14 row\(s\) counted in the dump's snapshot in \d+ ms/)
    // The session is gone once the dump is read (no transaction left open on the server). Its backend ends a
    // moment after the client closed it (seen still listed once under load): a session left open would stay.
    const sessions = () => pg.sql('postgres', "SELECT count(*) FROM pg_stat_activity WHERE datname = 'shop' AND backend_type = 'client backend'")
    for (let wait = 0; wait < 50 && (await sessions()) !== '0'; wait++) await new Promise((resolve) => setTimeout(resolve, 100))
    expect(await sessions()).to.equal('0')
  })

  it('a good dump drills and passes on the configured server; the scratch database is dropped', async () => {
    const file = join(tmp.dir, 'good.dump')
    const recorded = await dump(base, file)
    const result = await check(file, recorded)
    expect(result.differences).to.deep.equal([])
    expect(result.checked).to.equal('pg/shop.dump: restored into a scratch database on 127.0.0.1 port ' + pg.port + ', 2 table(s) and their row counts')
    expect(await scratchDatabases()).to.equal('')
    expect(logs.join('\n'))
      .to.match(/created scratch database backup_daemon_drill_\d+_[0-9a-f]{12}/)
      .and.match(/dropped scratch database/)
  })

  it('a good dump drills and passes on a temporary server, which is stopped and removed', async () => {
    const file = join(tmp.dir, 'good.dump')
    const recorded = await dump(base, file)
    const scratch = join(tmp.dir, 'temp-scratch')
    const before = (await readdir(tmpdir())).filter((n) => n.startsWith(scratchTempPrefix))
    const result = await check(file, recorded, { databaseServer: 'temporary', scratch })
    expect(result.differences).to.deep.equal([])
    expect(result.checked).to.match(/restored into a temporary server \(\/usr\/lib\/postgresql\/\d+\/bin\), 2 table\(s\) and their row counts/)
    const started = /pid (\d+), socket only/.exec(logs.join('\n'))
    expect(started, logs.join('\n')).to.not.equal(null)
    // The stop waits for the server's process to end.
    await waitFor(() => !processAlive(Number(started![1])), 10_000, 'the temporary server has exited')
    expect(await readdir(scratch)).to.deep.equal([])
    expect((await readdir(tmpdir())).filter((n) => n.startsWith(scratchTempPrefix))).to.deep.equal(before)
  })

  it('a dump that lost a row, or a table, fails naming the table and the counts', async () => {
    const recorded = await dump(base, join(tmp.dir, 'before.dump'))
    await pg.sql('shop', 'DELETE FROM blog.posts WHERE id = 3')
    const lostRow = join(tmp.dir, 'lost-row.dump')
    await dump(base, lostRow)
    await pg.sql('shop', 'ALTER TABLE public.tags RENAME TO labels')
    const renamed = join(tmp.dir, 'renamed.dump')
    await dump(base, renamed)
    await pg.sql('shop', "ALTER TABLE public.labels RENAME TO tags; INSERT INTO blog.posts (id, title) VALUES (3, 'post 3')")
    expect((await check(lostRow, recorded)).differences).to.deep.equal(['pg/shop.dump: table "blog.posts" has 11 row(s), the backup recorded 12'])
    for (const server of ['configured', 'temporary'] as const) {
      expect((await check(renamed, recorded, { databaseServer: server })).differences).to.deep.equal([
        'pg/shop.dump: table "blog.posts" has 11 row(s), the backup recorded 12',
        'pg/shop.dump: table "public.tags" is missing (recorded with 2 row(s))',
        'pg/shop.dump: table "public.labels" was not recorded at backup',
      ])
    }
    expect(await scratchDatabases()).to.equal('')
  })

  it("a truncated dump fails with pg_restore's error; the scratch database is dropped", async () => {
    const file = join(tmp.dir, 'good.dump')
    const recorded = await dump(base, file)
    const bytes = await readFile(file)
    const truncated = join(tmp.dir, 'truncated.dump')
    await writeFile(truncated, bytes.subarray(0, Math.floor(bytes.length * 0.6)))
    const result = await check(truncated, recorded)
    expect(result.differences).to.have.length(1)
    expect(result.differences[0]).to.match(
      /^pg\/shop\.dump: the restore failed: pg_restore exited with 1: .*(could not read|unexpected end|did not find|error)/i,
    )
    expect(await scratchDatabases()).to.equal('')
  })

  it('cancelled mid-drill: the scratch database is dropped, the temporary server stopped and removed', async () => {
    const file = join(tmp.dir, 'good.dump')
    const recorded = await dump(base, file)
    const configured = await check(file, recorded, { abortOn: /^created scratch database/ }).then(
      () => undefined,
      (e: Error) => e,
    )
    expect(configured?.message).to.equal('cancelled by the test')
    expect(await scratchDatabases()).to.equal('')
    const scratch = join(tmp.dir, 'cancelled-temp')
    const temporary = await check(file, recorded, { databaseServer: 'temporary', scratch, abortOn: /^started a temporary PostgreSQL server/ }).then(
      () => undefined,
      (e: Error) => e,
    )
    expect(temporary?.message).to.equal('cancelled by the test')
    const pid = Number(/pid (\d+), socket only/.exec(logs.filter((l) => l.startsWith('started a temporary')).at(-1)!)![1])
    await waitFor(() => !processAlive(pid), 10_000, 'the temporary server has exited')
    expect(await readdir(scratch)).to.deep.equal([])
  })

  it('a backup without psql, or whose params choose tables, records why nothing was counted; its drill proves the restore only', async () => {
    // pg_dump alone in a folder: the psql beside it is missing.
    const lone = join(tmp.dir, 'lone-bin')
    await mkdir(lone, { recursive: true })
    await symlink(join(bin, 'pg_dump'), join(lone, 'pg_dump')).catch(() => {})
    const file = join(tmp.dir, 'no-psql.dump')
    const recorded = (await dump({ ...base, pgDump: join(lone, 'pg_dump') }, file)) as { uncounted?: string }
    expect(recorded.uncounted).to.match(/^psql could not export a snapshot: .*ENOENT/)
    expect(logs.join('\n')).to.include('source "pg": row counts not recorded for the restore drill: psql could not export a snapshot')
    const result = await check(file, recorded)
    expect(result.differences).to.deep.equal([])
    expect(result.checked).to.match(/2 table\(s\) \(row counts not compared: psql could not export a snapshot/)
    const selected = await dump({ ...base, params: ['--schema=blog'] }, join(tmp.dir, 'selected.dump'))
    expect(selected).to.deep.equal({ uncounted: 'params choose what pg_dump dumps (--schema=blog)' })
  })

  it('an unreachable server fails clearly (configured mode) and leaves nothing', async () => {
    const port = await freePort()
    const scratch = join(tmp.dir, 'unreachable')
    const err = await check(join(tmp.dir, 'good.dump'), { tables: {} }, { config: { ...base, port }, scratch }).then(
      () => undefined,
      (e: Error) => e,
    )
    expect(err?.message).to.match(
      new RegExp(`^cannot reach the PostgreSQL server of source "pg" \\(127\\.0\\.0\\.1 port ${port}\\): .*refused.*; nothing was created$`, 's'),
    )
    expect(err?.message).to.not.include(pg.password)
    expect(await readdir(scratch)).to.deep.equal([])
    expect(await scratchDatabases()).to.equal('')
  })

  it('a role without CREATEDB is refused with a message suggesting databaseServer: temporary', async () => {
    await pg.sql('postgres', "CREATE ROLE reader LOGIN PASSWORD 'reader-pw'; GRANT CONNECT ON DATABASE shop TO reader")
    const err = await check(join(tmp.dir, 'good.dump'), { tables: {} }, { config: { ...base, user: 'reader', password: 'reader-pw' } }).then(
      () => undefined,
      (e: Error) => e,
    )
    expect(err?.message).to.match(/may not create its scratch database .*permission denied to create database.*databaseServer: temporary/)
    expect(await scratchDatabases()).to.equal('')
  })

  it("a killed drill's scratch database is dropped by the next drill; a live process's is kept", async () => {
    const dead = `backup_daemon_drill_${await deadPid()}_0123456789ab`
    const live = `backup_daemon_drill_${process.ppid}_0123456789ab`
    await pg.sql('postgres', `CREATE DATABASE ${dead}`)
    await pg.sql('postgres', `CREATE DATABASE ${live}`)
    try {
      const file = join(tmp.dir, 'good.dump')
      const result = await check(file, await dump(base, file))
      expect(result.differences).to.deep.equal([])
      expect(logs.join('\n')).to.include(`dropped scratch database ${dead}, left by a drill that did not finish`)
      expect(await scratchDatabases()).to.equal(live)
    } finally {
      await pg.sql('postgres', `DROP DATABASE IF EXISTS ${live}`)
    }
  })

  it('the scratch sweep stops a temporary server a killed drill left running, and removes its folders', async () => {
    const dataDir = join(tmp.dir, 'data')
    const dead = await deadPid()
    const scratch = join(dataDir, 'drills', `drill-${dead}-0123456789ab`, 'checks', 'pg')
    await mkdir(scratch, { recursive: true })
    const server = await startTempPostgres({ bin, scratch, signal: never() })
    const note = JSON.parse(await readFile(join(scratch, 'postgres.scratch-process.json'), 'utf8')) as { pid: number }
    expect(processAlive(note.pid)).to.equal(true)
    expect(await sweepDrillScratch(dataDir)).to.deep.equal([`drill-${dead}-0123456789ab (stopped postgres (pid ${note.pid}) left running by a killed drill)`])
    expect(processAlive(note.pid)).to.equal(false)
    expect(await readdir(tmpdir())).to.not.include(server.socketDir.split('/').pop())
    expect(await readdir(join(dataDir, 'drills'))).to.deep.equal([])
  })

  /** The CLI's config: job `shop` dumps the cluster's `shop` database over TCP and drills on `databaseServer`. */
  const shopJob = (databaseServer: 'configured' | 'temporary') => `dataDir: ./data
jobs:
  - name: shop
    compression: tar
    drill: { databaseServer: ${databaseServer} }
    sources:
      - { type: postgresql, name: pg, database: shop, host: 127.0.0.1, port: ${pg.port}, user: postgres, password: ${pg.password}, pgDump: ${join(bin, 'pg_dump')} }
    storages: [{ type: local, name: store, path: ./store }]
`

  it('backup-daemon drill on a job with a PostgreSQL source (the real CLI): recorded at run, proven by the drill', async () => {
    const dir = join(tmp.dir, 'cli')
    await mkdir(dir)
    await writeFile(join(dir, 'backup-daemon.yaml'), shopJob('configured'))
    const run = await runCli(['run', 'shop', '--config', 'backup-daemon.yaml'], { cwd: dir })
    expect(run.code, run.out).to.equal(0)
    const drill = await runCli(['drill', 'shop', '--config', 'backup-daemon.yaml'], { cwd: dir })
    expect(drill.code, drill.out).to.equal(0)
    expect(drill.out).to.match(/source "pg": pg\/shop\.dump: restored into a scratch database on 127\.0\.0\.1 port \d+, 3 table\(s\) and their row counts/)
    expect(drill.out).to.not.include(pg.password)
    expect(await scratchDatabases()).to.equal('')
    expect(await readdir(join(dir, 'data', 'drills'))).to.deep.equal([])
  })

  it('as a user other than root (nobody, as the daemon runs under systemd) the CLI drills on a temporary server it starts', async () => {
    // A folder of nobody's own, as `/var/lib/backup-daemon` is the service user's.
    const { dir, remove } = await nobodyFolder('bd-pg-nobody-')
    try {
      await writeFile(join(dir, 'backup-daemon.yaml'), shopJob('temporary'), { mode: 0o644 })
      const run = await runCli(['run', 'shop', '--config', 'backup-daemon.yaml'], { cwd: dir, user: 'nobody' })
      expect(run.code, run.out).to.equal(0)
      const drill = await runCli(['drill', 'shop', '--config', 'backup-daemon.yaml'], { cwd: dir, user: 'nobody' })
      expect(drill.code, drill.out).to.equal(0)
      expect(drill.out).to.match(
        /source "pg": pg\/shop\.dump: restored into a temporary server \(\/usr\/lib\/postgresql\/\d+\/bin\), 3 table\(s\) and their row counts/,
      )
      expect(drill.out).to.not.include(pg.password)
      expect(await readdir(join(dir, 'data', 'drills'))).to.deep.equal([])
      // The server it started ran as nobody and is gone (the stop waited for its exit; the process leaves the
      // table a moment later, as in the test of the temporary server above).
      await noProcessOfNobody('-x', 'postgres', 'postgres process')
    } finally {
      await remove()
    }
  })
})

describe('sources/postgresql drills (no server needed)', () => {
  it('retargets a name, a URI or a key/value string to the scratch database, keeping the rest', () => {
    expect(withDatabase('shop', 'scratch')).to.equal('scratch')
    expect(withDatabase('postgresql://u:pw@db:5433/shop?sslmode=require&dbname=shop', 'scratch')).to.equal('postgresql://u:pw@db:5433/scratch?sslmode=require')
    expect(withDatabase('postgres://db', 'scratch')).to.equal('postgres://db/scratch')
    expect(withDatabase("host=db dbname='my shop' password=pw", 'scratch')).to.equal('host=db dbname=scratch password=pw')
    expect(withDatabase('host=db user=u', 'scratch')).to.equal('host=db user=u dbname=scratch')
  })

  it("reads pg_dump's table patterns as pg_dump does (lower-cased, * and ?, quoted parts literal)", () => {
    expect(patternRegex('Posts')).to.deep.equal({ table: '^(posts)$' })
    expect(patternRegex('blog.p*')).to.deep.equal({ schema: '^(blog)$', table: '^(p.*)$' })
    expect(patternRegex('"My.Schema"."T?"')).to.deep.equal({ schema: '^(My\\.Schema)$', table: '^(T\\?)$' })
    expect(patternRegex('db.s.t$')).to.deep.equal({ schema: '^(s)$', table: '^(t\\$)$' })
  })

  it('a temporary server without its binaries fails naming the missing ones', async () => {
    const tmp = await tempDir('bd-pgbin-')
    try {
      await mkdir(join(tmp.dir, 'lone'))
      await writeFile(join(tmp.dir, 'lone', 'pg_dump'), '')
      await writeFile(join(tmp.dir, 'lone', 'psql'), '')
      const err = await findPostgresBin(join(tmp.dir, 'lone', 'pg_dump'), join(tmp.dir, 'none')).catch((e: Error) => e)
      expect((err as Error).message).to.equal(
        `a temporary PostgreSQL server needs the server binaries (initdb, postgres, pg_restore not in ${join(tmp.dir, 'lone')}): install the server package (postgresql) or drill on the configured server`,
      )
      const none = await findPostgresBin(undefined, join(tmp.dir, 'none')).catch((e: Error) => e)
      expect((none as Error).message).to.include(`(initdb, postgres, pg_restore, psql: no ${join(tmp.dir, 'none')}/<version>/bin)`)
    } finally {
      await tmp.remove()
    }
  })

  it('hands the exported snapshot to pg_dump, and finds the params that choose tables', () => {
    const config = { type: 'postgresql', name: 'pg', database: 'shop' } as const
    expect(pgDumpArgs(config, {}, '00000003-00000002-1').args).to.include('--snapshot=00000003-00000002-1')
    expect(pgDumpArgs(config, {}).args.some((a) => a.startsWith('--snapshot'))).to.equal(false)
    expect(selectingParam(['--no-owner', '-n', 'blog'])).to.equal('-n')
    expect(selectingParam(['--exclude-table-data=logs'])).to.equal('--exclude-table-data=logs')
    expect(selectingParam(['--no-owner', '--no-comments', '-Z0'])).to.equal(undefined)
  })
})
