/**
 * Restore drills of `mongodb` sources. Without a server: the documents per collection are counted as the
 * archive is written (views left out), and a drill whose server cannot be reached fails naming it (hosts
 * only, no credentials) with nothing created. Against a real server at MONGODB_URI (skipped without it,
 * saying why: no MongoDB server can run on this machine): a good archive restores into scratch databases
 * with the same counts and they are dropped; a record that disagrees and a truncated archive fail naming
 * the collection; a scratch database left by a dead drill is dropped.
 */
import { expect } from 'chai'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { buffer } from 'node:stream/consumers'
import { BSON, MongoClient } from 'mongodb'
import { mongodbDrill, type MongodbRecord } from '../../src/sources/mongodb/drill.js'
import { MongodbSource } from '../../src/sources/mongodb/index.js'
import { mongodbSourceSchema, type MongodbSourceConfig } from '../../src/sources/mongodb/schema.js'
import { writeArchive } from '../../src/sources/mongodb/writeArchive.js'
import { tempDir } from '../engine/helpers.js'
import { entriesOf } from '../support/entriesOf.js'
import { freePort } from '../support/freePort.js'

const uri = process.env.MONGODB_URI
const never = () => new AbortController().signal

describe('restore drills of mongodb sources', function () {
  this.timeout(120_000)
  let tmp: Awaited<ReturnType<typeof tempDir>>
  let checks = 0
  before(async () => (tmp = await tempDir('bd-mongo-drill-')))
  after(() => tmp.remove())

  const check = async (config: MongodbSourceConfig, bytes: Buffer, recorded: MongodbRecord) => {
    const scratch = join(tmp.dir, `check-${checks++}`)
    await mkdir(join(scratch, 'checks'), { recursive: true })
    await writeFile(join(scratch, 'dump.archive'), bytes)
    const lines: string[] = []
    const result = await mongodbDrill.check({
      config,
      files: [{ name: `${config.name}/${config.database}.archive`, path: join(scratch, 'dump.archive') }],
      recorded,
      scratch: join(scratch, 'checks'),
      databaseServer: 'configured',
      log: (_level, message) => lines.push(message),
      signal: never(),
    })
    return { ...result, lines }
  }

  it('counts the documents per collection as the archive is written (a view has none)', async () => {
    let counted: Record<string, number> | undefined
    const doc = (i: number) => BSON.serialize({ i })
    const plan = {
      header: { concurrentCollections: 1, serverVersion: '7.0.0', toolVersion: 'test' },
      collections: [
        {
          db: 'a',
          collection: 'x.y',
          metadata: '{}',
          size: 0,
          type: 'collection',
          documents: async function* () {
            for (let i = 0; i < 3; i++) yield doc(i)
          },
        },
        { db: 'a', collection: 'empty', metadata: '{}', size: 0, type: 'collection', documents: async function* () {} },
        { db: 'a', collection: 'view', metadata: '{}', size: 0, type: 'view' },
      ],
      segmentBytes: 20,
      onWritten: (documents: Record<string, number>) => (counted = documents),
    }
    await buffer(writeArchive(plan))
    expect(counted).to.deep.equal({ 'a.x.y': 3, 'a.empty': 0 })
  })

  it('an unreachable server fails naming it (no credentials), nothing created', async () => {
    const port = await freePort()
    const config = mongodbSourceSchema.parse({
      type: 'mongodb',
      name: 'mongo',
      uri: `mongodb://drill:Mongo-Secret-9@127.0.0.1:${port}/?serverSelectionTimeoutMS=1500`,
      database: 'shop',
    })
    const err = await check(config, Buffer.alloc(0), { collections: { 'shop.items': 1 } }).catch((e: Error) => e)
    expect((err as Error).message).to.match(
      new RegExp(`^the drill could not connect to the configured server mongodb://127\\.0\\.0\\.1:${port}: .*; nothing was created$`),
    )
    expect((err as Error).message).to.not.include('Mongo-Secret-9')
  })

  describe('against a real server at MONGODB_URI', () => {
    const source = `bd_drill_src_${process.pid}`
    let client: MongoClient
    let config: MongodbSourceConfig
    let archive: Buffer
    let recorded: MongodbRecord
    const scratchDatabases = async () =>
      (await client.db('admin').admin().listDatabases({ nameOnly: true })).databases.map((d) => d.name).filter((n) => n.startsWith('backup_daemon_drill_'))

    before(async function () {
      if (!uri) {
        console.log('    skipped: MONGODB_URI is not set (no MongoDB server can run on this machine)')
        this.skip()
      }
      client = await new MongoClient(uri).connect()
      const db = client.db(source)
      await db.collection('items').insertMany(Array.from({ length: 1200 }, (_, i) => ({ i, name: `item ${i}` })))
      await db.collection('tags').insertMany([{ t: 'a' }, { t: 'b' }, { t: 'c' }])
      await db.createCollection('cheap', { viewOn: 'items', pipeline: [{ $match: { i: { $lt: 10 } } }] })
      config = mongodbSourceSchema.parse({ type: 'mongodb', name: 'mongo', uri, database: source })
      const dumper = new MongodbSource(config, { log: () => {} })
      for await (const entry of entriesOf(dumper, never())) if (entry.open) archive = await buffer(entry.open(never()))
      recorded = dumper.recorded() as MongodbRecord
    })
    after(async () => {
      if (!client) return
      await client.db(source).dropDatabase()
      await client.close()
    })

    it('records the documents per collection', () => {
      expect(recorded).to.deep.equal({ collections: { [`${source}.items`]: 1200, [`${source}.tags`]: 3 } })
    })

    it('a good archive restores into a scratch database with the same counts; it is dropped', async () => {
      const result = await check(config, archive, recorded)
      expect(result.differences).to.deep.equal([])
      expect(result.checked).to.include('2 collection(s) and their documents')
      expect(result.lines.join('\n')).to.match(/dropped scratch database backup_daemon_drill_\d+_[0-9a-f]{12}/)
      expect(await scratchDatabases()).to.deep.equal([])
    })

    it('a record that disagrees and a truncated archive fail naming the collection', async () => {
      const altered = await check(config, archive, { collections: { [`${source}.items`]: 1201, [`${source}.gone`]: 2, [`${source}.tags`]: 3 } })
      expect(altered.differences).to.have.members([
        `mongo/${source}.archive: collection "${source}.items" has 1200 document(s), the backup recorded 1201`,
        `mongo/${source}.archive: collection "${source}.gone" is missing (recorded with 2 document(s))`,
      ])
      const truncated = await check(config, archive.subarray(0, archive.length - 2000), recorded)
      expect(truncated.differences[0]).to.match(/the restore into the scratch database\(s\) failed: .*truncated/)
      expect(await scratchDatabases()).to.deep.equal([])
    })

    it('a scratch database left by a dead drill is dropped at the next drill', async () => {
      await client.db('backup_daemon_drill_99999999_0123456789ab').collection('x').insertOne({ x: 1 })
      const result = await check(config, archive, recorded)
      expect(result.lines).to.include('dropped backup_daemon_drill_99999999_0123456789ab, the scratch database of a drill that did not finish')
      expect(await scratchDatabases()).to.deep.equal([])
    })
  })
})
