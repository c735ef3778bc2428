/**
 * Restore drills of `mariadb` sources against a throwaway MariaDB server (Debian's `mariadb-server`): the
 * dump's tables and row counts recorded at backup (counted from the dump itself); a good dump drills on a
 * scratch database of the configured server and on a temporary server, and neither is left afterwards; an
 * altered or truncated dump fails naming the table and the counts; an unreachable server and a user without
 * CREATE fail clearly; a leftover scratch database of a dead drill is dropped. Through the real CLI: a good
 * snapshot drills, and a temporary server left by a killed `drill` is stopped by the next one.
 *
 * Runs alone (scripts/run-tests.mjs): it checks that no process of nobody is left (a drill as nobody), which another file's could be.
 */
import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { mysqlDrill, type MysqlRecord } from '../../src/sources/mysql/drill.js'
import { mysqlDumpEntryName, MysqlSource } from '../../src/sources/mysql/MysqlSource.js'
import { mariadbSourceSchema, type MysqlFamilyConfig } from '../../src/sources/mysql/schema.js'
import { tempDir, waitFor } from '../engine/helpers.js'
import { writeDaemonYaml } from '../support/daemonYaml.js'
import { dumpOf } from '../support/entriesOf.js'
import { freePort } from '../support/freePort.js'
import { checkInScratch } from './support/drillCheck.js'
import { startMariadbWith, type MariadbServer } from '../support/mariadbServer.js'
import { daemonBin, runCli } from '../support/runCli.js'
import { nobodyFolder, noProcessOfNobody } from '../support/serviceUser.js'
import { processAlive } from '../../src/sources/support/processAlive.js'

describe('restore drills of mariadb sources (a real MariaDB server)', function () {
  this.timeout(180_000)
  let server: MariadbServer
  let tmp: Awaited<ReturnType<typeof tempDir>>
  let dump: Buffer
  let recorded: MysqlRecord
  const scratchDatabases = () => server.sql("SHOW DATABASES LIKE 'backup\\_daemon\\_drill\\_%'")

  const config = (overrides: Partial<MysqlFamilyConfig> = {}): MysqlFamilyConfig =>
    mariadbSourceSchema.parse({
      type: 'mariadb',
      name: 'db',
      port: server.port,
      username: server.username,
      password: server.password,
      database: 'shop',
      ...overrides,
    })

  /** The drill check on `bytes` as the restored dump, in a fresh scratch folder. */
  const check = (bytes: Buffer, options: { databaseServer?: 'configured' | 'temporary'; cfg?: MysqlFamilyConfig; record?: MysqlRecord } = {}) => {
    const cfg = options.cfg ?? config()
    return checkInScratch(mysqlDrill, tmp.dir, {
      config: cfg,
      entry: mysqlDumpEntryName(cfg),
      file: 'shop.sql',
      bytes,
      recorded: options.record ?? recorded,
      databaseServer: options.databaseServer,
    })
  }

  before(async () => {
    tmp = await tempDir('bd-mysql-drill-')
    server = await startMariadbWith('shop', [
      'CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(100), note TEXT) ENGINE=InnoDB',
      'CREATE TABLE tags (name VARCHAR(20)) ENGINE=InnoDB',
      'CREATE TABLE empty_one (id INT) ENGINE=InnoDB',
      'CREATE TABLE `odd ``name``` (id INT, txt TEXT) ENGINE=InnoDB',
      "INSERT INTO items SELECT seq, CONCAT('item ', seq), REPEAT('(x);', seq % 7) FROM seq_1_to_5000",
      "INSERT INTO tags VALUES ('a'), ('b'), ('c')",
      // Strings holding what a naive counter would take for rows and statement ends.
      "INSERT INTO `odd ``name``` VALUES (1, 'it''s (1),(2); -- not a comment'), (2, '\\\\'), (3, ')(/*')",
      'CREATE VIEW tag_view AS SELECT name FROM tags',
    ])
    const source = new MysqlSource(config(), { log: () => {} })
    dump = await dumpOf(source)
    recorded = source.recorded() as MysqlRecord
  })
  after(async () => {
    await server?.stop()
    await tmp?.remove()
  })

  it('records the tables and row counts the dump holds (strings with parentheses and semicolons included; a view is no table)', () => {
    expect(recorded).to.deep.equal({ tables: { 'shop.items': 5000, 'shop.tags': 3, 'shop.empty_one': 0, 'shop.odd `name`': 3 } })
  })

  it('configured server: a good dump restores into a scratch database with the same counts; the database is dropped', async () => {
    const result = await check(dump)
    expect(result.differences).to.deep.equal([])
    expect(result.checked).to.match(/restored into a scratch database on 127\.0\.0\.1:\d+, 4 table\(s\)/)
    expect(result.lines.join('\n')).to.match(/created scratch database backup_daemon_drill_\d+_[0-9a-f]{12}[\s\S]*dropped scratch database/)
    expect(await scratchDatabases()).to.equal('')
  })

  it('temporary server: a good dump restores into a server started in the scratch folder, stopped afterwards', async () => {
    const result = await check(dump, { databaseServer: 'temporary' })
    expect(result.differences).to.deep.equal([])
    expect(result.checked).to.include('restored into a temporary server, 4 table(s)')
    expect(result.lines).to.include('stopped the temporary server')
    const pid = (JSON.parse(await readFile(join(result.dir, 'checks', 'server', 'server.scratch-process.json'), 'utf8')) as { pid: number }).pid
    expect(processAlive(pid)).to.equal(false)
  })

  it('an all-databases dump: on a temporary server its databases are counted (the mysql tables too); on the configured server it is refused', async () => {
    const cfg = config({ database: undefined, allDatabases: true })
    const source = new MysqlSource(cfg, { log: () => {} })
    const all = await dumpOf(source)
    const record = source.recorded() as MysqlRecord
    expect(record.tables).to.include({ 'shop.items': 5000, 'shop.tags': 3 })
    expect(Object.keys(record.tables).some((t) => t.startsWith('mysql.'))).to.equal(true)
    const temporary = await check(all, { databaseServer: 'temporary', cfg, record })
    expect(temporary.differences).to.deep.equal([])
    const configured = await check(all, { cfg, record })
    expect(configured.differences).to.deep.equal([
      "db/all-databases.sql: an all-databases dump names its own databases (and the server's mysql tables): it cannot go into a scratch database on the configured server; set jobs[].drill.databaseServer: temporary",
    ])
  })

  it('an altered dump (a row and a table removed) fails naming the tables and the counts, on both servers', async () => {
    const text = dump.toString('latin1')
    expect(text).to.match(/INSERT INTO `tags` VALUES\s*\('a'\),\s*\('b'\),/)
    let altered = text.replace(/\('b'\),\s*/, '')
    altered = altered.replace(/DROP TABLE IF EXISTS `empty_one`;[\s\S]*?UNLOCK TABLES;/, '')
    expect(altered).to.not.include('CREATE TABLE `empty_one`')
    for (const databaseServer of ['configured', 'temporary'] as const) {
      const result = await check(Buffer.from(altered, 'latin1'), { databaseServer })
      expect(result.differences).to.have.members([
        'db/shop.sql: table "shop.tags" has 2 row(s), the backup recorded 3',
        'db/shop.sql: table "shop.empty_one" is missing (recorded with 0 row(s))',
      ])
    }
    expect(await scratchDatabases()).to.equal('')
  })

  it('a truncated dump fails: the restore error and the tables that differ', async () => {
    const result = await check(dump.subarray(0, Math.floor(dump.length / 2)))
    expect(result.differences[0]).to.match(/^db\/shop\.sql: the restore into backup_daemon_drill_\d+_[0-9a-f]{12} failed: .*ERROR/)
    expect(result.differences.join('\n')).to.match(/table "shop\.\S+" (is missing|has \d+ row\(s\), the backup recorded)/)
    expect(await scratchDatabases()).to.equal('')
  })

  it('cancelled once the scratch database exists: the check stops and the database is dropped', async () => {
    const scratch = join(tmp.dir, 'check-cancelled')
    await mkdir(scratch, { recursive: true })
    await writeFile(join(scratch, 'shop.sql'), dump)
    const controller = new AbortController()
    const err = await mysqlDrill
      .check({
        config: config(),
        files: [{ name: 'db/shop.sql', path: join(scratch, 'shop.sql') }],
        recorded,
        scratch,
        databaseServer: 'configured',
        log: (_level, message) => {
          if (message.startsWith('created scratch database')) controller.abort(new Error('cancelled by the test'))
        },
        signal: controller.signal,
      })
      .catch((e: Error) => e)
    expect((err as Error).message).to.equal('cancelled by the test')
    expect(await scratchDatabases()).to.equal('')
  })

  it('an unreachable server fails clearly, nothing created', async () => {
    const port = await freePort()
    const err = await check(dump, { cfg: config({ port }) }).catch((e: Error) => e)
    expect((err as Error).message).to.match(
      new RegExp(`^the drill could not connect to the configured server 127\\.0\\.0\\.1:${port}: .*Can't connect.*; nothing was created$`),
    )
  })

  it('a user without CREATE: the message names the privilege and suggests a temporary server', async () => {
    await server.sql("CREATE USER 'reader'@'127.0.0.1' IDENTIFIED BY 'Reader-pw-1'; GRANT SELECT ON shop.* TO 'reader'@'127.0.0.1'")
    const err = await check(dump, { cfg: config({ username: 'reader', password: 'Reader-pw-1' }) }).catch((e: Error) => e)
    expect((err as Error).message)
      .to.include('needs the CREATE and DROP privileges')
      .and.include('databaseServer: temporary')
      .and.not.include('Reader-pw-1')
    expect(await scratchDatabases()).to.equal('')
  })

  it('a scratch database left by a dead drill is dropped at the next drill; one of a live process stays', async () => {
    await server.sql('CREATE DATABASE backup_daemon_drill_99999999_0123456789ab; CREATE DATABASE backup_daemon_drill_' + server.pid + '_0123456789ab')
    const result = await check(dump)
    expect(result.differences).to.deep.equal([])
    expect(result.lines).to.include('dropped backup_daemon_drill_99999999_0123456789ab, the scratch database of a drill that did not finish')
    expect(await scratchDatabases()).to.equal(`backup_daemon_drill_${server.pid}_0123456789ab`)
    await server.sql(`DROP DATABASE backup_daemon_drill_${server.pid}_0123456789ab`)
  })

  it('as nobody (the service user under systemd): the CLI drills on a temporary server it starts as that user, stopped afterwards', async () => {
    const { dir, remove } = await nobodyFolder('bd-mysql-nobody-')
    try {
      const file = await writeDaemonYaml(
        dir,
        `  - name: shop
    compression: tar
    drill: { databaseServer: temporary }
    sources:
      - { type: mariadb, name: db, port: ${server.port}, username: ${server.username}, password: ${server.password}, database: shop }
    storages: [{ type: local, name: store, path: ./store }]
`,
      )
      const run = await runCli(['run', 'shop', '--config', file], { cwd: dir, user: 'nobody' })
      expect(run.code, run.out).to.equal(0)
      const drilled = await runCli(['drill', 'shop', '--config', file], { cwd: dir, user: 'nobody' })
      expect(drilled.code, drilled.out).to.equal(0)
      expect(drilled.out).to.include('restored into a temporary server, 4 table(s)')
      expect(drilled.out).to.not.include(server.password)
      expect(await readdir(join(dir, 'data', 'drills'))).to.deep.equal([])
      await noProcessOfNobody('-f', 'mariadbd|mysqld', 'MariaDB server')
    } finally {
      await remove()
    }
  })

  it('through the CLI: backup-daemon drill proves a snapshot (both servers); a temporary server dies with a killed drill, whose folder the next removes', async () => {
    const dir = join(tmp.dir, 'cli')
    await mkdir(dir)
    const jobs = (databaseServer: string) => `  - name: shop
    compression: tar
    drill: { databaseServer: ${databaseServer} }
    sources:
      - { type: mariadb, name: db, port: ${server.port}, username: ${server.username}, password: ${server.password}, database: shop }
    storages: [{ type: local, name: store, path: ./store }]
`
    const file = await writeDaemonYaml(dir, jobs('configured'))
    const run = await runCli(['run', 'shop', '--config', file], { cwd: dir })
    expect(run.code, run.out).to.equal(0)
    const drilled = await runCli(['drill', 'shop', '--config', file], { cwd: dir })
    expect(drilled.code, drilled.out).to.equal(0)
    expect(drilled.out).to.match(/source "db": db\/shop\.sql: restored into a scratch database on 127\.0\.0\.1:\d+, 4 table\(s\)/)
    expect(drilled.out).to.not.include(server.password)
    expect(await scratchDatabases()).to.equal('')

    const drills = join(dir, 'data', 'drills')
    // The same snapshot, the server unreachable: a clear failure, nothing left.
    const closedPort = await freePort()
    await writeDaemonYaml(dir, jobs('configured').replace(`port: ${server.port}`, `port: ${closedPort}`))
    const unreachable = await runCli(['drill', 'shop', '--config', file], { cwd: dir })
    expect(unreachable.code, unreachable.out).to.equal(1)
    expect(unreachable.out).to.include(`the drill could not connect to the configured server 127.0.0.1:${closedPort}`)
    expect(unreachable.out).to.not.include(server.password)
    expect(await readdir(drills)).to.deep.equal([])

    await writeDaemonYaml(dir, jobs('temporary'))
    const child = spawn(process.execPath, [daemonBin, 'drill', 'shop', '--config', file], { cwd: dir, stdio: 'ignore' })
    const closed = new Promise((resolve) => child.on('close', resolve))
    const pidFile = await waitFor(
      async () => {
        for (const name of await readdir(drills).catch(() => [] as string[])) {
          const path = join(drills, name, 'checks', 'db', 'server', 'server.scratch-process.json')
          if (await readFile(path, 'utf8').catch(() => '')) return path
        }
        return undefined
      },
      60_000,
      'the temporary server',
    )
    const pid = (JSON.parse(await readFile(pidFile, 'utf8')) as { pid: number }).pid
    child.kill('SIGKILL')
    await closed
    // The server dies with the drill (spawnOwned: the kernel's death signal), and the next drill removes its folder.
    await waitFor(() => !processAlive(pid), 10_000, 'the temporary server to stop with the killed drill')
    const next = await runCli(['drill', 'shop', '--config', file], { cwd: dir })
    expect(next.code, next.out).to.equal(0)
    expect(next.out).to.match(/removed drill-\d+-[0-9a-f]{12}.*, the scratch folder of a drill that did not finish/)
    expect(next.out).to.include('restored into a temporary server, 4 table(s)')
    expect(await readdir(drills)).to.deep.equal([])
  })
})
