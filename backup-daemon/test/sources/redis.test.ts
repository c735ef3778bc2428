/**
 * The `redis` source against throwaway Redis servers (Debian's `redis-server`): a live snapshot over
 * the replication protocol with a password and with an ACL user, restored by starting a fresh server
 * on the restored `dump.rdb` and comparing every key; the `path` mode; the shared source suite. A
 * tiny fake server covers what a real one does not send here (a diskless `$EOF:` payload, a cut).
 */
import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { Readable } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import { createGunzip } from 'node:zlib'
import { createArchive } from '../../src/archive/createArchive.js'
import { restoreRedis } from '../../src/sources/redis/restoreRedis.js'
import { restoreDatabases } from '../../src/restore/restoreDatabases.js'
import { redisSource } from '../../src/sources/redis/index.js'
import { RedisSource } from '../../src/sources/redis/RedisSource.js'
import { redisSourceSchema, type RedisSourceConfig } from '../../src/sources/redis/schema.js'
import { syncRdb } from '../../src/sources/redis/syncRdb.js'
import type { SourceContext, SourceEntry } from '../../src/sources/types.js'
import { freePort } from '../support/freePort.js'
import { startRedisServer, type RedisServer } from '../support/redisServer.js'
import { runSourceSuite } from '../support/runSourceSuite.js'
import { entriesOf } from '../support/entriesOf.js'

const never = () => new AbortController().signal
const quiet: SourceContext = { log: () => {} }
const baseTmp = tmpdir()
const keys = 20_000

let server: RedisServer | undefined

/** RESP for redis-cli --pipe. */
const resp = (...args: (string | Buffer)[]) =>
  Buffer.concat([
    Buffer.from(`*${args.length}\r\n`),
    ...args.flatMap((a) => [Buffer.from(`$${Buffer.byteLength(a)}\r\n`), Buffer.from(a), Buffer.from('\r\n')]),
  ])

async function fill(target: RedisServer): Promise<void> {
  const commands: Buffer[] = []
  for (let i = 0; i < keys; i++) commands.push(resp('SET', `str:${i}`, `value-${i}-${'x'.repeat(100)}`))
  commands.push(resp('HSET', 'hash', 'a', '1', 'b', 'two', 'c', 'drei'))
  commands.push(resp('RPUSH', 'list', 'one', 'two', 'three', 'two'))
  commands.push(resp('SADD', 'set', 'x', 'y', 'z'))
  commands.push(resp('ZADD', 'zset', '1.5', 'a', '-2', 'b', '10', 'c'))
  commands.push(resp('SET', 'bin', Buffer.from([0, 1, 2, 0xff, 0x0d, 0x0a, 0x24])))
  commands.push(resp('SET', 'big', 'B'.repeat(1 << 20)))
  commands.push(resp('SET', 'ttl', 'soon', 'EX', '86400'))
  const child = spawn('redis-cli', ['-s', target.socket, '--no-auth-warning', '--pipe'], {
    env: { ...process.env, REDISCLI_AUTH: target.password },
    stdio: ['pipe', 'ignore', 'inherit'],
  })
  child.stdin.end(Buffer.concat(commands))
  const code = await new Promise((resolve) => child.once('close', resolve))
  if (code !== 0) throw new Error(`redis-cli --pipe exited with ${code}`)
}

/** Everything the fixture holds, as text (same data gives the same text). */
async function contents(target: RedisServer): Promise<string> {
  const names = Array.from({ length: keys }, (_, i) => `str:${i}`)
  const strings = await target.cli('MGET', ...names)
  const parts = [
    await target.cli('DBSIZE'),
    strings,
    await target.cli('HGETALL', 'hash'),
    await target.cli('LRANGE', 'list', '0', '-1'),
    (await target.cli('SMEMBERS', 'set')).split('\n').sort().join('\n'),
    await target.cli('ZRANGE', 'zset', '0', '-1', 'WITHSCORES'),
    await target.cli('--no-raw', 'GET', 'bin'),
    String((await target.cli('GET', 'big')).length),
  ]
  return parts.join('\n--\n')
}

async function redis(): Promise<RedisServer> {
  if (server) return server
  server = await startRedisServer()
  await fill(server)
  return server
}

const config = async (overrides: Partial<RedisSourceConfig> = {}): Promise<RedisSourceConfig> => {
  const s = await redis()
  return redisSourceSchema.parse({ type: 'redis', name: 'cache', port: s.port, username: s.aclUser.username, password: s.aclUser.password, ...overrides })
}

async function snapshot(cfg: RedisSourceConfig, context = quiet): Promise<{ entries: SourceEntry[]; bytes: Buffer }> {
  const entries: SourceEntry[] = []
  let bytes = Buffer.alloc(0)
  for await (const entry of entriesOf(new RedisSource(cfg, context), never())) {
    entries.push(entry)
    if (entry.open) bytes = await buffer(entry.open(never()))
  }
  return { entries, bytes }
}

/** Starts a fresh server on `rdb` (as restored) and returns what it holds. */
async function loadInFreshServer(rdb: Buffer): Promise<{ text: string; ttl: string; version: string }> {
  const dir = await mkdtemp(join(baseTmp, 'bd-redis-restore-'))
  try {
    await restoreRedis(Readable.from([rdb]), join(dir, 'restored.rdb'))
    const fresh = await startRedisServer({ rdb: { dir, file: 'restored.rdb' }, password: true })
    try {
      return { text: await contents(fresh), ttl: await fresh.cli('TTL', 'ttl'), version: fresh.version }
    } finally {
      await fresh.stop()
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

after(async () => {
  await server?.stop()
  server = undefined
})

runSourceSuite({
  title: 'sources/redis',
  setup: async () => void (await redis()),
  newSource: async (context) => new RedisSource(await config(), context),
  progress: /dump\.rdb done, \d/,
  checkArchive: (entries) => {
    const rdb = entries.find((e) => e.name === 'cache/dump.rdb')
    expect(rdb?.data.subarray(0, 5).toString()).to.equal('REDIS')
    expect(rdb!.size, 'compressed (LZF) in the RDB').to.be.greaterThan(500_000)
  },
  failing: () => ({
    source: freePort().then(async (port) => new RedisSource(await config({ port }), quiet)),
    message: /source "cache": redis at 127\.0\.0\.1:\d+: connect ECONNREFUSED/,
  }),
  badCredentials: (context) => ({
    source: config({ password: 'wrong-Redis-pass-5' }).then((c) => new RedisSource(c, context)),
    secret: 'wrong-Redis-pass-5',
    message: /AUTH failed: WRONGPASS/,
  }),
  restore: {
    // A file source (`path`) is what goes back in place: an RDB file a fresh server then loads.
    target: async () => config({ path: join(await mkdtemp(join(baseTmp, 'bd-redis-suite-')), 'dump.rdb') }),
    async compare(target) {
      const dir = dirname((target as RedisSourceConfig).path!)
      try {
        const fresh = await startRedisServer({ rdb: { dir, file: 'dump.rdb' }, password: true })
        try {
          expect(await contents(fresh)).to.equal(await contents(await redis()))
        } finally {
          await fresh.stop()
        }
      } finally {
        await rm(dir, { recursive: true, force: true })
      }
    },
  },
  ownProcesses: () => (server ? [server.pid] : []),
})

describe('sources/redis (a real Redis server)', function () {
  this.timeout(120_000)

  it('takes a live snapshot as an ACL user, of known size, that a fresh server loads with every key', async () => {
    const s = await redis()
    const logs: string[] = []
    const { entries, bytes } = await snapshot(await config(), { log: (_l, m) => logs.push(m) })
    expect(entries.map((e) => [e.name, e.type])).to.deep.equal([
      ['cache', 'directory'],
      ['cache/dump.rdb', 'file'],
    ])
    expect(entries[1]!.size, 'size announced by the server').to.equal(bytes.length)
    expect(bytes.subarray(0, 5).toString()).to.equal('REDIS')
    expect(logs.join('\n')).to.match(/SYNC from redis at 127\.0\.0\.1:\d+/)
    const restored = await loadInFreshServer(bytes)
    console.log(`      (Redis ${s.version})`)
    expect(restored.text).to.equal(await contents(s))
    expect(restored.text.split('\n--\n')[0]).to.equal(String(keys + 7))
    expect(Number(restored.ttl)).to.be.within(1, 86_400)
  })

  it("uses the default user's password over the unix socket; without one the server's NOAUTH is the message", async () => {
    const s = await redis()
    const { bytes } = await snapshot(await config({ socket: s.socket, username: undefined, password: s.password }))
    expect(bytes.subarray(0, 5).toString()).to.equal('REDIS')
    const err = (await snapshot(await config({ username: undefined, password: undefined })).catch((e: unknown) => e)) as Error
    expect(err.message).to.match(/source "cache": redis at 127\.0\.0\.1:\d+: SYNC failed: NOAUTH Authentication required/)
  })

  it("an ACL user with PSYNC but not SYNC (the original's suggested ACL) gets the snapshot through PSYNC; without either, NOPERM", async () => {
    const s = await redis()
    await s.cli('ACL', 'SETUSER', 'psyncer', 'on', '>Psync-pass-2', '~*', '+@read', '+bgsave', '+replconf', '+psync', '+ping')
    const { bytes } = await snapshot(await config({ username: 'psyncer', password: 'Psync-pass-2' }))
    expect((await loadInFreshServer(bytes)).text).to.equal(await contents(s))
    await s.cli('ACL', 'SETUSER', 'reader', 'on', '>Reader-pass-1', '+get', '~*')
    const err = (await snapshot(await config({ username: 'reader', password: 'Reader-pass-1' })).catch((e: unknown) => e)) as Error
    expect(err.message).to.match(/SYNC failed: NOPERM.*; PSYNC failed: NOPERM/)
    expect(err.message).not.to.include('Reader-pass-1')
  })

  it('path copies an RDB file; a file that is not an RDB fails the run', async () => {
    const s = await redis()
    await s.cli('SAVE')
    const saved = join(s.dir, 'dump.rdb')
    const { entries, bytes } = await snapshot(await config({ path: saved }))
    expect(entries[1]!.size).to.equal(bytes.length)
    expect(bytes.equals(await readFile(saved))).to.equal(true)
    const restored = await loadInFreshServer(bytes)
    expect(restored.text).to.equal(await contents(s))
    const bogus = join(s.dir, 'not-an.rdb')
    await writeFile(bogus, 'hello, not redis')
    const err = (await snapshot(await config({ path: bogus })).catch((e: unknown) => e)) as Error
    expect(err.message).to.match(/not-an\.rdb is not an RDB file/)
  })

  it("restore --into-database puts a path source's dump.rdb back (overwrite needed), checked with redis-check-rdb", async () => {
    const s = await redis()
    await s.cli('SAVE')
    const dir = await mkdtemp(join(baseTmp, 'bd-redis-path-'))
    try {
      const file = join(dir, 'dump.rdb')
      await writeFile(file, await readFile(join(s.dir, 'dump.rdb')))
      const cfg = await config({ name: 'rdbfile', path: file })
      const archive = await buffer(createArchive([new RedisSource(cfg, quiet)], { compression: 'tar.gz', signal: never() }))
      await writeFile(file, 'REDIS0011 damaged')
      const refused = (await restoreDatabases(Readable.from([archive]).pipe(createGunzip()), [cfg], { log: () => {} }).catch((e: unknown) => e)) as Error
      expect(refused.message).to.match(/dump\.rdb exists/)
      await restoreDatabases(Readable.from([archive]).pipe(createGunzip()), [cfg], { overwrite: true, log: () => {} })
      expect((await readFile(file)).equals(await readFile(join(s.dir, 'dump.rdb')))).to.equal(true)
      const damaged = (await restoreRedis(Readable.from([Buffer.from('REDIS0011 damaged')]), file, { overwrite: true }).catch((e: unknown) => e)) as Error
      expect(damaged.message).to.match(/fails redis-check-rdb/)
      expect((await readFile(file)).subarray(0, 5).toString(), 'the good file stays').to.equal('REDIS')
      const live = (await restoreDatabases(Readable.from([archive]).pipe(createGunzip()), [{ ...cfg, path: undefined, name: 'rdbfile' }], {
        log: () => {},
      }).catch((e: unknown) => e)) as Error
      expect(live.message).to.match(/live redis source is restored by hand/)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it("validates its config entry with the original's defaults and marks the password secret", () => {
    expect(redisSource.secretKeys).to.deep.equal(['password'])
    expect(redisSource.pathKeys).to.deep.equal(['socket', 'path'])
    expect(redisSourceSchema.parse({ type: 'redis', name: 'r' })).to.include({ host: '127.0.0.1', port: 6379 })
    expect(redisSourceSchema.safeParse({ type: 'redis', name: 'r', port: 0 }).success).to.equal(false)
    expect(redisSourceSchema.safeParse({ type: 'redis', name: 'r', user: 'x' }).success, 'unknown key').to.equal(false)
  })
})

describe('sources/redis/syncRdb (a fake server: what a real one does not send here)', () => {
  let fake: Server
  let port: number
  let answer: (socket: import('node:net').Socket) => void

  before(async () => {
    fake = createServer((socket) => {
      let seen = ''
      socket.on('data', (chunk) => {
        seen += chunk.toString('latin1')
        if (seen.includes('REPLCONF') && !seen.includes('SYNC')) socket.write('+OK\r\n')
        if (seen.includes('SYNC')) {
          seen = ''
          answer(socket)
        }
      })
    })
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve))
    port = (fake.address() as { port: number }).port
  })
  after(() => new Promise((resolve) => fake.close(resolve)))

  it('reads a diskless payload ended by its $EOF: mark, after keep-alives', async () => {
    const mark = 'a'.repeat(40)
    const rdb = Buffer.concat([Buffer.from('REDIS0011'), Buffer.alloc(100_000, 7)])
    answer = (socket) => {
      socket.write('\n\n')
      socket.write(`$EOF:${mark}\r\n`)
      socket.write(rdb.subarray(0, 50_000))
      setTimeout(() => socket.write(Buffer.concat([rdb.subarray(50_000), Buffer.from(mark), Buffer.from('*1\r\n$4\r\nPING\r\n')])), 20)
    }
    const transfer = await syncRdb({ host: '127.0.0.1', port }, never())
    expect(transfer.size).to.equal(undefined)
    expect((await buffer(transfer.body)).equals(rdb)).to.equal(true)
  })

  it('fails when the connection ends before the announced length', async () => {
    answer = (socket) => {
      socket.write('$1000\r\nREDIS0011')
      socket.end()
    }
    const transfer = await syncRdb({ host: '127.0.0.1', port }, never())
    expect(transfer.size).to.equal(1000)
    const err = (await buffer(transfer.body).catch((e: unknown) => e)) as Error
    expect(err.message).to.match(/connection closed after 9 of 1000 bytes of the RDB/)
  })
})
