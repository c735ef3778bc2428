import { expect } from 'chai'
import { Readable } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import { BSON, MongoClient } from 'mongodb'
import { parseMongoArchive } from '../../src/sources/mongodb/parseMongoArchive.js'
import { restoreMongo } from '../../src/sources/mongodb/restoreMongo.js'
import { MongodbSource, mongodbSource, mongoEntryName } from '../../src/sources/mongodb/index.js'
import { entriesOf } from '../support/entriesOf.js'

const uri = process.env.MONGODB_URI
const never = () => new AbortController().signal
const context = { log: () => {} }

describe('sources/mongodb (a real server at MONGODB_URI)', function () {
  this.timeout(120_000)
  const suffix = `${process.pid}_${Date.now()}`
  const source = `bd_src_${suffix}`
  const target = `bd_dst_${suffix}`
  let client: MongoClient

  before(async function () {
    if (!uri) {
      console.log('    skipped: MONGODB_URI is not set (no MongoDB server can run on this machine)')
      this.skip()
    }
    client = await new MongoClient(uri).connect()
    const db = client.db(source)
    await db.createCollection('events', { capped: true, size: 1 << 20 })
    await db.collection('events').insertMany(Array.from({ length: 20 }, (_, i) => ({ i })))
    const items = db.collection('items')
    await items.insertMany(
      Array.from({ length: 2500 }, (_, i) => ({
        sku: `s${i}`,
        n32: new BSON.Int32(i),
        n64: BSON.Long.fromNumber(i * 1e6),
        d: new BSON.Double(i),
        at: new Date(i),
        bin: new BSON.Binary(Buffer.from([i % 256])),
      })),
    )
    await items.createIndex({ sku: 1 }, { unique: true })
    await db.collection('secrets').insertOne({ token: 'x' })
    await db.createCollection('cheap', { viewOn: 'items', pipeline: [{ $match: { d: { $lt: 10 } } }] })
  })
  after(async () => {
    if (!client) return
    await client.db(source).dropDatabase()
    await client.db(target).dropDatabase()
    await client.close()
  })

  async function dumpBytes(gzip: boolean): Promise<Buffer> {
    const dumper = new MongodbSource({ type: 'mongodb', name: 'mongo', uri: uri!, database: source, excludeCollections: ['secrets'], gzip }, context)
    let bytes = Buffer.alloc(0)
    for await (const entry of entriesOf(dumper, never())) if (entry.open) bytes = await buffer(entry.open(never()))
    return bytes
  }

  it('dumps one database as an archive with preludes, documents and CRCs, minus excluded collections', async () => {
    const bytes = await dumpBytes(false)
    const names: string[] = []
    let documents = 0
    for await (const event of parseMongoArchive(Readable.from([bytes]))) {
      if (event.kind === 'collection') names.push(`${event.prelude.collection}:${event.prelude.type}`)
      if (event.kind === 'document') documents++
    }
    expect(names.sort()).to.deep.equal(['cheap:view', 'events:collection', 'items:collection'])
    expect(documents).to.equal(2520)
  })

  it('restores the gzipped archive into another database with values, options, indexes and views', async () => {
    const bytes = await dumpBytes(true)
    expect(bytes[0]).to.equal(0x1f)
    const result = await restoreMongo(Readable.from([bytes]), uri!, { toDatabase: target })
    expect(result.documents).to.equal(2520)
    const db = client.db(target)
    const restored = await db.collection('items').findOne({ sku: 's7' }, { promoteValues: false })
    expect(restored!.n32).to.be.instanceOf(BSON.Int32)
    expect(restored!.n64).to.be.instanceOf(BSON.Long)
    expect(restored!.d).to.be.instanceOf(BSON.Double)
    expect((await db.collection('items').indexes()).map((i) => [i.name, i.unique ?? false])).to.deep.include(['sku_1', true])
    const info = await db.listCollections({ name: 'events' }).toArray()
    expect((info[0] as { options: { capped?: boolean } }).options.capped).to.equal(true)
    expect(await db.collection('cheap').countDocuments()).to.equal(10)
    expect(await db.listCollections({ name: 'secrets' }).toArray()).to.have.length(0)
  })
})

describe('sources/mongodb (config and naming, no server)', () => {
  it('names its entry after the database and gzip, and keeps the URI and the password secret', () => {
    expect(mongoEntryName({ name: 'm', database: 'cms', gzip: true })).to.equal('m/cms.archive.gz')
    expect(mongoEntryName({ name: 'm' })).to.equal('m/all.archive')
    expect(mongodbSource.secretKeys).to.deep.equal(['uri', 'password'])
    expect(mongodbSource.configSchema.safeParse({ type: 'mongodb', name: 'm', uri: 'http://x' }).success).to.equal(false)
    expect(mongodbSource.configSchema.safeParse({ type: 'mongodb', name: 'm', uri: 'mongodb+srv://u:p@h/db', gzip: true }).success).to.equal(true)
  })

  it('fails the entry when the server cannot be reached', async function () {
    this.timeout(60_000)
    const dumper = new MongodbSource({ type: 'mongodb', name: 'm', uri: 'mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=500' }, context)
    let failure: unknown
    for await (const entry of entriesOf(dumper, never())) {
      if (entry.open) failure = await buffer(entry.open(never())).catch((e: unknown) => e)
    }
    expect(failure).to.be.instanceOf(Error)
  })
})
