/**
 * The `mysql` and `mariadb` sources against a throwaway MariaDB server (Debian's `mariadb-server`):
 * dumps of a few MB restored into fresh databases and compared row by row (checksums), the shared
 * source suite, and the options of the original service. Debian has no MySQL server: `mysql` runs
 * `mysqldump` (on Debian the MariaDB build of it) against the same server.
 */
import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { mkdtemp, rm, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import { createGunzip } from 'node:zlib'
import { createArchive } from '../../src/archive/createArchive.js'
import { restoreMysql } from '../../src/sources/mysql/restoreMysql.js'
import { restoreDatabases } from '../../src/restore/restoreDatabases.js'
import { mariadbSource, mysqlSource } from '../../src/sources/mysql/index.js'
import { mysqlDumpArgs } from '../../src/sources/mysql/mysqlDumpArgs.js'
import { MysqlSource } from '../../src/sources/mysql/MysqlSource.js'
import { mariadbSourceSchema, mysqlSourceSchema, type MysqlFamilyConfig } from '../../src/sources/mysql/schema.js'
import type { SourceContext } from '../../src/sources/types.js'
import { freePort } from '../support/freePort.js'
import { startMariadbWith, type MariadbServer } from '../support/mariadbServer.js'
import { runSourceSuite } from '../support/runSourceSuite.js'
import { entriesOf } from '../support/entriesOf.js'

const never = () => new AbortController().signal
const quiet: SourceContext = { log: () => {} }

let server: MariadbServer | undefined
let serverStarts = 0

/** One server for the whole file (the suite and the tests below), started by whoever needs it first. */
async function mariadb(): Promise<MariadbServer> {
  if (server) return server
  serverStarts++
  server = await startMariadbWith('shop', [
    'CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(100) NOT NULL, price DECIMAL(10,2), note TEXT, KEY items_name (name)) ENGINE=InnoDB',
    'CREATE TABLE blobs (id INT PRIMARY KEY, body LONGBLOB) ENGINE=InnoDB',
    'CREATE TABLE audit_log (id INT AUTO_INCREMENT PRIMARY KEY, line VARCHAR(200)) ENGINE=InnoDB',
    'CREATE TABLE `odd ``name``` (id INT PRIMARY KEY, txt VARCHAR(50) CHARACTER SET utf8mb4) ENGINE=InnoDB',
    // ~3 MB of text and ~1 MB of binary (every byte value, quotes, backslashes and NULs included).
    "INSERT INTO items SELECT seq, CONCAT('item ', seq), seq * 1.5, REPEAT(MD5(seq), 2) FROM seq_1_to_40000",
    'INSERT INTO blobs SELECT seq, RANDOM_BYTES(1024) FROM seq_1_to_1000',
    "INSERT INTO blobs VALUES (0, CONCAT(CHAR(0), CHAR(39), CHAR(92), CHAR(10), 'x'))",
    "INSERT INTO audit_log (line) SELECT CONCAT('secret line ', seq) FROM seq_1_to_100",
    "INSERT INTO `odd ``name``` VALUES (1, 'héllo ✓ 🐬'), (2, 'it''s')",
  ])
  return server
}

const config = async (overrides: Partial<MysqlFamilyConfig> & { type?: 'mysql' | 'mariadb' } = {}): Promise<MysqlFamilyConfig> => {
  const s = await mariadb()
  const schema = overrides.type === 'mysql' ? mysqlSourceSchema : mariadbSourceSchema
  return schema.parse({
    type: 'mariadb',
    name: 'db',
    host: '127.0.0.1',
    port: s.port,
    username: s.username,
    password: s.password,
    database: 'shop',
    ...overrides,
  })
}

/** Checksums of every table of `database` (same data gives the same numbers). */
async function checksums(database: string): Promise<string> {
  const s = await mariadb()
  return s.sql('CHECKSUM TABLE items, blobs, audit_log, `odd ``name``` EXTENDED', database)
}

async function dumpBytes(cfg: MysqlFamilyConfig, path?: string): Promise<Buffer> {
  let bytes = Buffer.alloc(0)
  for await (const entry of entriesOf(new MysqlSource(cfg, quiet, path), never())) if (entry.open) bytes = await buffer(entry.open(never()))
  return bytes
}

// A root hook: after every test of the run, whichever of this file's blocks ran (`--grep` included).
after(async () => {
  await server?.stop()
  server = undefined
})

runSourceSuite({
  title: 'sources/mariadb',
  setup: async () => void (await mariadb()),
  newSource: async (context) => new MysqlSource(await config(), context),
  progress: /mariadb-dump done, \d/,
  checkArchive: (entries) => {
    const dump = entries.find((e) => e.name === 'db/shop.sql')
    expect(dump, 'db/shop.sql').to.not.equal(undefined)
    expect(dump!.data.length).to.be.greaterThan(3_000_000)
    expect(dump!.data.toString('latin1')).to.include('CREATE TABLE `items`')
  },
  failing: () => ({
    source: config({ database: 'no_such_db' }).then((c) => new MysqlSource(c, quiet)),
    message: /mariadb-dump exited with 2: .*Unknown database 'no_such_db'/,
  }),
  badCredentials: (context) => ({
    source: config({ password: 'wrong-Password-777' }).then((c) => new MysqlSource(c, context)),
    secret: 'wrong-Password-777',
    message: /mariadb-dump exited with 2: .*Access denied for user 'backup'@'localhost'|Access denied for user 'backup'@'127\.0\.0\.1'/,
  }),
  restore: {
    // Into another database of the same server (created by the restore), compared table by table.
    target: () => config({ database: 'suite_restored' }),
    async compare() {
      expect(await checksums('suite_restored')).to.equal((await checksums('shop')).replaceAll('shop.', 'suite_restored.'))
    },
  },
  ownProcesses: () => (server ? [server.pid] : []),
})

describe('sources/mysql and sources/mariadb (a real MariaDB server)', function () {
  this.timeout(120_000)

  it('dumps with mariadb-dump over TCP and restores into a fresh database with the same rows', async () => {
    const s = await mariadb()
    console.log(`      (MariaDB ${s.version}; server started ${serverStarts} time(s) for this file)`)
    const bytes = await dumpBytes(await config())
    await restoreMysql(Readable.from([bytes]), { database: 'restored', port: s.port, username: s.username, password: s.password })
    expect(await checksums('restored')).to.equal((await checksums('shop')).replaceAll('shop.', 'restored.'))
    expect(await s.sql('SELECT COUNT(*), SUM(price), MAX(note) FROM items', 'restored')).to.equal(
      await s.sql('SELECT COUNT(*), SUM(price), MAX(note) FROM items', 'shop'),
    )
    expect(await s.sql('SELECT HEX(body) FROM blobs WHERE id = 0', 'restored')).to.equal('00275C0A78')
    expect(await s.sql('SELECT txt FROM `odd ``name``` WHERE id = 1', 'restored')).to.equal('héllo ✓ 🐬')
    const indexes = (db: string) =>
      s.sql(`SELECT INDEX_NAME, COLUMN_NAME FROM information_schema.statistics WHERE table_schema = '${db}' AND table_name = 'items' ORDER BY 1`)
    expect(await indexes('restored'))
      .to.equal(await indexes('shop'))
      .and.include('items_name\tname')
  })

  it('--single-transaction reads past an open write transaction without waiting for it, and without its changes', async () => {
    const s = await mariadb()
    // A writer in the middle of a transaction: row locks and a metadata lock that LOCK TABLES would wait for.
    const writer = spawn('mariadb', ['--no-defaults', `--socket=${s.socket}`, '--user=root', '--batch'], { stdio: ['pipe', 'ignore', 'inherit'] })
    writer.stdin.write("BEGIN; UPDATE shop.items SET name = 'uncommitted' WHERE id <= 100; SELECT 1;\n")
    try {
      for (let i = 0; i < 600 && (await s.sql('SELECT COUNT(*) FROM information_schema.innodb_trx')) === '0'; i++) await new Promise((r) => setTimeout(r, 50))
      expect(await s.sql('SELECT COUNT(*) FROM information_schema.innodb_trx'), "the writer's transaction is open").to.not.equal('0')
      const dump = (await dumpBytes(await config({ tables: ['items'] }))).toString('latin1')
      expect(dump).to.include("(1,'item 1',").and.not.include('uncommitted')
      expect(await s.sql('SELECT COUNT(*) FROM information_schema.innodb_trx'), 'still open: the dump did not wait for it').to.not.equal('0')
    } finally {
      writer.stdin.end('ROLLBACK;\n')
      await new Promise((resolve) => writer.once('close', resolve))
    }
  })

  it('the mysql kind runs mysqldump (over the unix socket) and restores the same way', async () => {
    const s = await mariadb()
    const cfg = await config({ type: 'mysql', socket: s.socket, username: 'root', password: undefined })
    const logs: string[] = []
    let bytes = Buffer.alloc(0)
    for await (const entry of entriesOf(mysqlSource.create(cfg as never, { log: (_l, m) => logs.push(m) }), never()))
      if (entry.open) bytes = await buffer(entry.open(never()))
    expect(logs.join('\n')).to.match(/mysqldump of database "shop" on .*mysqld\.sock/)
    await restoreMysql(Readable.from([bytes]), { database: 'restored_mysql', socket: s.socket, username: 'root' })
    expect(await checksums('restored_mysql')).to.equal((await checksums('shop')).replaceAll('shop.', 'restored_mysql.'))
  })

  it('mariadb falls back to mysqldump when mariadb-dump is not on PATH', async () => {
    const bin = await mkdtemp(join(tmpdir(), 'bd-path-'))
    try {
      await symlink('/usr/bin/mysqldump', join(bin, 'mysqldump'))
      const logs: string[] = []
      const source = new MysqlSource(await config(), { log: (_l, m) => logs.push(m) }, bin)
      for await (const entry of entriesOf(source, never())) if (entry.open) await buffer(entry.open(never()))
      expect(logs.join('\n')).to.match(/mysqldump of database "shop"/)
      const err = (await dumpBytes(await config(), join(bin, 'empty')).catch((e: unknown) => e)) as Error
      expect(err.message).to.match(/none of mariadb-dump, mysqldump found on PATH/)
    } finally {
      await rm(bin, { recursive: true, force: true })
    }
  })

  it('tables, excludeTables and extraParams (bare flags and values) shape the dump', async () => {
    const s = await mariadb()
    const only = (await dumpBytes(await config({ tables: ['items', 'blobs'], extraParams: { where: 'id <= 10', 'skip-comments': '' } }))).toString('latin1')
    expect(only).to.include('CREATE TABLE `items`').and.include('CREATE TABLE `blobs`').and.not.include('CREATE TABLE `audit_log`')
    expect(only).not.to.match(/^-- Dump completed/m)
    await restoreMysql(Readable.from([Buffer.from(only, 'latin1')]), { database: 'only_two', port: s.port, username: s.username, password: s.password })
    expect(await s.sql('SELECT COUNT(*) FROM items', 'only_two')).to.equal('10')
    expect(await s.sql('SELECT COUNT(*) FROM blobs', 'only_two')).to.equal('11')
    const without = (await dumpBytes(await config({ excludeTables: ['audit_log', 'odd `name`'], extraParams: { 'no-data': true } as never }))).toString(
      'latin1',
    )
    expect(without).to.include('CREATE TABLE `items`').and.not.include('audit_log').and.not.include('odd ``name``').and.not.include('INSERT INTO')
  })

  it('two dumps of an unchanged database are the same bytes (--skip-dump-date); extraParams dump-date keeps the date', async () => {
    const first = await dumpBytes(await config())
    await new Promise((resolve) => setTimeout(resolve, 1100))
    const second = await dumpBytes(await config())
    expect(second.equals(first), 'byte-identical').to.equal(true)
    expect(first.toString('latin1')).to.match(/^-- Dump completed\n*$/m)
    const dated = (await dumpBytes(await config({ extraParams: { 'dump-date': '' } }))).toString('latin1')
    expect(dated).to.match(/^-- Dump completed on \d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/m)
  })

  it('allDatabases dumps every database into all-databases.sql; restoring it needs overwrite', async () => {
    const s = await mariadb()
    await s.sql('CREATE DATABASE other; CREATE TABLE other.t (id INT PRIMARY KEY); INSERT INTO other.t VALUES (1), (2), (3)')
    const cfg = await config({ database: undefined, allDatabases: true })
    const names: string[] = []
    let bytes = Buffer.alloc(0)
    for await (const entry of entriesOf(new MysqlSource(cfg, quiet), never())) {
      names.push(entry.name)
      if (entry.open) bytes = await buffer(entry.open(never()))
    }
    expect(names).to.deep.equal(['db', 'db/all-databases.sql'])
    const connection = { port: s.port, username: s.username, password: s.password }
    const refused = (await restoreMysql(Readable.from([bytes]), connection).catch((e: unknown) => e)) as Error
    expect(refused.message).to.match(/all-databases dump .* with overwrite/)
    await s.sql('DROP DATABASE other')
    await restoreMysql(Readable.from([bytes]), connection, { overwrite: true })
    expect(await s.sql('SELECT SUM(id) FROM other.t')).to.equal('6')
  })

  it('refuses to load into a database that holds tables unless overwrite, then replaces them', async () => {
    const s = await mariadb()
    const bytes = await dumpBytes(await config({ tables: ['audit_log'] }))
    const connection = { database: 'busy', port: s.port, username: s.username, password: s.password }
    await s.sql('CREATE DATABASE busy; CREATE TABLE busy.audit_log (id INT PRIMARY KEY, line VARCHAR(200)); INSERT INTO busy.audit_log VALUES (999, "local")')
    const err = (await restoreMysql(Readable.from([bytes]), connection).catch((e: unknown) => e)) as Error
    expect(err.message).to.match(/database "busy" already holds 1 table\(s\)/)
    expect(await s.sql('SELECT COUNT(*) FROM busy.audit_log')).to.equal('1')
    await restoreMysql(Readable.from([bytes]), connection, { overwrite: true })
    expect(await s.sql('SELECT COUNT(*), MAX(id) FROM busy.audit_log')).to.equal('100\t100')
  })

  it('restore --into-database (restoreDatabases) puts a snapshot back where the source reads from', async () => {
    const s = await mariadb()
    await s.sql('CREATE DATABASE live; CREATE TABLE live.t (id INT PRIMARY KEY, v VARCHAR(10)); INSERT INTO live.t VALUES (1, "a"), (2, "b")')
    const cfg = await config({ name: 'live', database: 'live' })
    const snapshot = await buffer(createArchive([new MysqlSource(cfg, quiet)], { compression: 'tar.gz', signal: never() }))
    await s.sql('DELETE FROM live.t WHERE id = 1; INSERT INTO live.t VALUES (3, "c")')
    const lines: string[] = []
    const refused = (await restoreDatabases(Readable.from([snapshot]).pipe(createGunzip()), [cfg], { log: (m) => lines.push(m) }).catch(
      (e: unknown) => e,
    )) as Error
    expect(refused.message).to.match(/source "live": database "live" already holds 1 table\(s\).*--force/)
    await restoreDatabases(Readable.from([snapshot]).pipe(createGunzip()), [cfg], { overwrite: true, log: (m) => lines.push(m) })
    expect(await s.sql('SELECT GROUP_CONCAT(v ORDER BY id) FROM live.t')).to.equal('a,b')
    expect(lines.join('\n')).to.include('restored source "live" into database live')
  })

  it("a broken dump fails the restore with the client's message", async () => {
    const s = await mariadb()
    const err = (await restoreMysql(Readable.from([Buffer.from('CREATE TABLE x (id INT);\nTHIS IS NOT SQL;\n')]), {
      database: 'broken',
      port: s.port,
      username: s.username,
      password: s.password,
    }).catch((e: unknown) => e)) as Error
    expect(err.message, err.message).to.match(/mariadb exited with 1: .*ERROR 1064/)
  })

  it('an unreachable server fails with a clear message', async () => {
    const port = await freePort()
    const err = (await dumpBytes(await config({ port })).catch((e: unknown) => e)) as Error
    expect(err.message).to.match(/mariadb-dump exited with 2: .*Can't connect to server on '127\.0\.0\.1'/)
    expect(err.message).not.to.include((await mariadb()).password)
  })

  it('never puts the password on the command line; --single-transaction unless turned off', async () => {
    const cfg = await config({ password: 'p@ss-on-env' })
    const { args, env } = mysqlDumpArgs(cfg, {})
    expect(args.join(' ')).not.to.include('p@ss-on-env')
    expect(env.MYSQL_PWD).to.equal('p@ss-on-env')
    expect(args).to.include('--single-transaction')
    expect(mysqlDumpArgs(await config({ singleTransaction: false }), {}).args).not.to.include('--single-transaction')
    // The original's example asks for it in extraParams: passed once.
    expect(
      mysqlDumpArgs(await config({ extraParams: { 'single-transaction': '', quick: '' } }), {}).args.filter((a) => a === '--single-transaction'),
    ).to.have.length(1)
    expect(mysqlDumpArgs(await config({ password: undefined }), { MYSQL_PWD: 'inherited' }).env.MYSQL_PWD).to.equal(undefined)
  })

  it("validates its config entry with the original's defaults and marks the password secret", () => {
    expect(mariadbSource.secretKeys).to.deep.equal(['password'])
    expect(mysqlSource.type).to.equal('mysql')
    const parsed = mysqlSourceSchema.parse({ type: 'mysql', name: 'm', database: 'x' })
    expect(parsed).to.include({ host: '127.0.0.1', port: 3306, allDatabases: false, singleTransaction: true })
    expect(mysqlSourceSchema.safeParse({ type: 'mysql', name: 'm' }).success, 'neither database nor allDatabases').to.equal(false)
    expect(mysqlSourceSchema.safeParse({ type: 'mysql', name: 'm', database: 'x', allDatabases: true }).success, 'both').to.equal(false)
    // The original ignores tables/excludeTables with allDatabases (its configs may hold them): so do we.
    const all = mysqlSourceSchema.parse({ type: 'mysql', name: 'm', allDatabases: true, tables: ['t'], excludeTables: ['x'] })
    expect(mysqlDumpArgs(all, {}).args.join(' ')).to.include('--all-databases').and.not.include('ignore-table').and.not.match(/ t$/)
    expect(mysqlSourceSchema.safeParse({ type: 'mysql', name: 'm', database: 'x', extraParams: { '--bad': '' } }).success).to.equal(false)
    expect(
      mariadbSourceSchema.parse({ type: 'mariadb', name: 'm', database: 'x', extraParams: { 'lock-wait-timeout': 5, 'skip-comments': '' } }).extraParams,
    ).to.deep.equal({ 'lock-wait-timeout': '5', 'skip-comments': '' })
  })
})
