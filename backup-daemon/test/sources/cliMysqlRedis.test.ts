/**
 * The new database sources through the real command line (child processes of `bin/backup-daemon.js`):
 * `run` backs up a `mariadb` and a live `redis` source from a YAML file with `env:` secrets, then
 * `restore --into-database --force` puts the MariaDB rows back (the live Redis source is left out,
 * it is restored by hand), and `restore --to` gives a `dump.rdb` a fresh Redis server loads.
 */
import { expect } from 'chai'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeDaemonYaml } from '../support/daemonYaml.js'
import { startMariadbServer, type MariadbServer } from '../support/mariadbServer.js'
import { startRedisServer, type RedisServer } from '../support/redisServer.js'
import { runCli } from '../support/runCli.js'

const cli = (args: string[], cwd: string, env: Record<string, string>) => runCli(args, { cwd, env })

describe('backup-daemon run / restore with mariadb and redis sources (command line)', function () {
  this.timeout(180_000)
  let maria: MariadbServer
  let redis: RedisServer
  let dir: string

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bd-cli-dbs-'))
    maria = await startMariadbServer()
    redis = await startRedisServer()
  })
  after(async () => {
    await maria?.stop()
    await redis?.stop()
    await rm(dir, { recursive: true, force: true })
  })

  it('backs up both, restores MariaDB with --into-database --force and Redis by hand', async () => {
    await maria.sql('CREATE DATABASE shop')
    await maria.sql(
      "CREATE TABLE orders (id INT PRIMARY KEY, item VARCHAR(50)); INSERT INTO orders SELECT seq, CONCAT('item ', seq) FROM seq_1_to_3000",
      'shop',
    )
    const rows = () => maria.sql('SELECT COUNT(*), MD5(GROUP_CONCAT(item ORDER BY id)) FROM shop.orders')
    const expected = await rows()
    await redis.cli('SET', 'greeting', 'hello')
    await redis.cli('HSET', 'user:1', 'name', 'Ada')
    const file = await writeDaemonYaml(
      dir,
      `  - name: dbs
    compression: tar.gz
    sources:
      - { type: mariadb, name: shop, port: ${maria.port}, username: ${maria.username}, password: env:T_MARIA_PASSWORD, database: shop }
      - { type: redis, name: cache, port: ${redis.port}, username: ${redis.aclUser.username}, password: env:T_REDIS_PASSWORD }
    storages: [{ type: local, name: disk, path: ./backups }]
`,
    )
    const env = { T_MARIA_PASSWORD: maria.password, T_REDIS_PASSWORD: redis.aclUser.password }
    const backup = await cli(['run', 'dbs', '--config', file], dir, env)
    expect(backup.code, backup.out).to.equal(0)
    expect(backup.out)
      .to.match(/mariadb-dump done, \d/)
      .and.match(/dump\.rdb done, \d/)
    for (const secret of Object.values(env)) expect(backup.out).not.to.include(secret)
    const snapshot = (await readdir(join(dir, 'backups/dbs'))).find((n) => n.endsWith('.manifest.json'))!.slice(0, -'.manifest.json'.length)

    await maria.sql("DELETE FROM shop.orders WHERE id % 2 = 0; UPDATE shop.orders SET item = 'changed'")
    expect(await rows()).to.not.equal(expected)
    const restore = await cli(['restore', 'dbs', snapshot, '--config', file, '--into-database', '--force'], dir, env)
    expect(restore.code, restore.out).to.equal(0)
    expect(restore.out).to.include('restored source "shop" into database shop').and.not.include('"cache"')
    expect(await rows()).to.equal(expected)

    const files = await cli(['restore', 'dbs', snapshot, '--config', file, '--to', join(dir, 'out')], dir, env)
    expect(files.code, files.out).to.equal(0)
    const rdbDir = join(dir, 'out/cache')
    expect((await readFile(join(rdbDir, 'dump.rdb'))).subarray(0, 5).toString()).to.equal('REDIS')
    const fresh = await startRedisServer({ rdb: { dir: rdbDir, file: 'dump.rdb' } })
    try {
      expect(await fresh.cli('GET', 'greeting')).to.equal('hello')
      expect(await fresh.cli('HGET', 'user:1', 'name')).to.equal('Ada')
    } finally {
      await fresh.stop()
    }
  })
})
