/**
 * Restore drills of `redis` sources against a throwaway Redis server (Debian's `redis-server`): the keys
 * per database are counted from the RDB at backup (every value encoding: strings small, large and LZF,
 * lists, sets, hashes, sorted sets, streams with consumer groups and pending entries, 20 000 small keys
 * across chunk boundaries) and equal the server's; a good RDB loads into a temporary redis-server with the
 * same counts; a record that disagrees names the database and both counts; a truncated RDB fails with
 * redis-server's own load error. Through the real CLI, as root and as nobody (the service user): a good
 * snapshot drills; nothing is left running.
 *
 * Runs alone (scripts/run-tests.mjs): it checks that no process of nobody is left (a drill as nobody), which another file's could be.
 */
import { expect } from 'chai'
import { mkdir, readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { redisDrill, type RedisRecord } from '../../src/sources/redis/drill.js'
import { RedisSource } from '../../src/sources/redis/RedisSource.js'
import { redisSourceSchema, type RedisSourceConfig } from '../../src/sources/redis/schema.js'
import { tempDir } from '../engine/helpers.js'
import { writeDaemonYaml } from '../support/daemonYaml.js'
import { dumpOf } from '../support/entriesOf.js'
import { checkInScratch } from './support/drillCheck.js'
import { startRedisServer, type RedisServer } from '../support/redisServer.js'
import { runCli } from '../support/runCli.js'
import { nobodyFolder, noProcessOfNobody } from '../support/serviceUser.js'
import { processAlive } from '../../src/sources/support/processAlive.js'

describe('restore drills of redis sources (a real Redis server)', function () {
  this.timeout(120_000)
  let server: RedisServer
  let tmp: Awaited<ReturnType<typeof tempDir>>
  let rdb: Buffer
  let recorded: RedisRecord

  const config = (): RedisSourceConfig => redisSourceSchema.parse({ type: 'redis', name: 'cache', port: server.port, password: server.password })
  const check = async (bytes: Buffer, record: RedisRecord = recorded) => {
    const result = await checkInScratch(redisDrill, tmp.dir, { config: config(), entry: 'cache/dump.rdb', file: 'dump.rdb', bytes, recorded: record })
    return { ...result, pidFile: join(result.dir, 'checks', 'server', 'server.scratch-process.json') }
  }

  before(async () => {
    tmp = await tempDir('bd-redis-drill-')
    server = await startRedisServer()
    const lua = (script: string) => server.cli('EVAL', script, '0')
    await lua("for i=1,20000 do redis.call('SET', 'k'..i, i) end")
    await lua("redis.call('SET', 'big', string.rep('abcdefgh', 200000)); redis.call('SET', 'text', 'hello'); redis.call('SET', 'n', 12345)")
    await lua(
      "for i=1,300 do redis.call('RPUSH', 'list', 'item'..i); redis.call('SADD', 'set', 'm'..i); redis.call('SADD', 'ints', i); redis.call('HSET', 'hash', 'f'..i, string.rep('v', i)); redis.call('ZADD', 'zset', i / 3, 'z'..i) end",
    )
    await lua(
      "redis.call('RPUSH', 'small', 'a', 'b'); redis.call('HSET', 'smallhash', 'a', '1'); redis.call('ZADD', 'smallz', 1, 'a'); redis.call('EXPIRE', 'small', 100000)",
    )
    await lua(
      "for i=1,50 do redis.call('XADD', 'events', '*', 'n', i) end; redis.call('XGROUP', 'CREATE', 'events', 'g', '0'); redis.call('XREADGROUP', 'GROUP', 'g', 'c1', 'COUNT', 5, 'STREAMS', 'events', '>')",
    )
    await server.cli('-n', '3', 'EVAL', "for i=1,7 do redis.call('SET', 'three'..i, i) end", '0')
    const source = new RedisSource(config(), { log: () => {} })
    rdb = await dumpOf(source)
    recorded = source.recorded() as RedisRecord
  })
  after(async () => {
    await server?.stop()
    await tmp?.remove()
  })

  it('records the keys per database the RDB holds, equal to the server', async () => {
    const info = await server.cli('INFO', 'keyspace')
    expect(info)
      .to.match(/db0:keys=20012,/)
      .and.match(/db3:keys=7,/)
    expect(recorded).to.deep.equal({ keys: { db0: 20012, db3: 7 } })
  })

  it('a good RDB loads into a temporary redis-server with the same counts; the server is stopped', async () => {
    const result = await check(rdb)
    expect(result.differences).to.deep.equal([])
    expect(result.checked).to.equal('cache/dump.rdb: loaded by a temporary redis-server, 20019 key(s) in 2 database(s)')
    expect(result.lines).to.include('stopped the temporary redis-server')
    expect(processAlive((JSON.parse(await readFile(result.pidFile, 'utf8')) as { pid: number }).pid)).to.equal(false)
  })

  it('an RDB holding keys that expired since it was saved (a path source): they are counted, and the drill keeps them', async () => {
    const other = await startRedisServer()
    try {
      await other.cli('EVAL', "for i=1,30 do redis.call('SET', 'e'..i, i, 'PX', 1500) end; redis.call('SET', 'kept', 1)", '0')
      await other.cli('SAVE')
      await new Promise((resolve) => setTimeout(resolve, 2000))
      const source = new RedisSource(redisSourceSchema.parse({ type: 'redis', name: 'cache', path: join(other.dir, 'dump.rdb') }), { log: () => {} })
      const bytes = await dumpOf(source)
      const record = source.recorded() as RedisRecord
      expect(record).to.deep.equal({ keys: { db0: 31 } })
      const result = await check(bytes, record)
      expect(result.differences).to.deep.equal([])
      expect(result.checked).to.include('31 key(s) in 1 database(s)')
    } finally {
      await other.stop()
    }
  })

  it('a record that disagrees: the database and both counts are named', async () => {
    const result = await check(rdb, { keys: { db0: 20013, db3: 7, db5: 1 } })
    expect(result.differences).to.deep.equal([
      'cache/dump.rdb: db0 has 20012 key(s), the backup recorded 20013',
      'cache/dump.rdb: db5 has 0 key(s), the backup recorded 1',
    ])
  })

  it("a truncated RDB fails with redis-server's own load error; the server is gone", async () => {
    const result = await check(rdb.subarray(0, rdb.length - 5000))
    console.log(`      (${result.differences[0]})`)
    expect(result.differences).to.have.length(1)
    expect(result.differences[0]).to.match(/^cache\/dump\.rdb: redis-server did not load dump\.rdb: .*Short read/)
    expect(processAlive((JSON.parse(await readFile(result.pidFile, 'utf8')) as { pid: number }).pid)).to.equal(false)
  })

  /** `run` then `drill` of a job on the live server, through the real CLI, in `dir` (as `user` when given). */
  async function drillThroughCli(dir: string, user?: string): Promise<void> {
    const file = await writeDaemonYaml(
      dir,
      `  - name: cache
    compression: tar
    sources:
      - { type: redis, name: cache, port: ${server.port}, password: ${server.password} }
    storages: [{ type: local, name: store, path: ./store }]
`,
    )
    const run = await runCli(['run', 'cache', '--config', file], { cwd: dir, ...(user && { user }) })
    expect(run.code, run.out).to.equal(0)
    const drilled = await runCli(['drill', 'cache', '--config', file], { cwd: dir, ...(user && { user }) })
    expect(drilled.code, drilled.out).to.equal(0)
    expect(drilled.out).to.include('source "cache": cache/dump.rdb: loaded by a temporary redis-server, 20019 key(s) in 2 database(s)')
    expect(drilled.out).to.not.include(server.password)
    expect(await readdir(join(dir, 'data', 'drills'))).to.deep.equal([])
  }

  it('through the CLI: backup-daemon drill proves a snapshot of a live server; the scratch folder is gone', async () => {
    const dir = join(tmp.dir, 'cli')
    await mkdir(dir)
    await drillThroughCli(dir)
  })

  it('the same as nobody (the service user under systemd): its own temporary redis-server, nothing left running', async () => {
    const { dir, remove } = await nobodyFolder('bd-redis-nobody-')
    try {
      await drillThroughCli(dir, 'nobody')
      await noProcessOfNobody('-x', 'redis-server', 'redis-server')
    } finally {
      await remove()
    }
  })
})
