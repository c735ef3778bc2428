import { expect } from 'chai'
import { randomBytes } from 'node:crypto'
import { Readable } from 'node:stream'
import { gzipSync } from 'node:zlib'
import { BSON } from 'mongodb'
import { parseMongoArchive, type ArchiveEvent } from '../../src/sources/mongodb/parseMongoArchive.js'
import { collectionMetadata } from '../../src/sources/mongodb/collectionMetadata.js'
import { Crc64, crc64 } from '../../src/sources/mongodb/crc64.js'
import { writeArchive, type ArchivePlan } from '../../src/sources/mongodb/writeArchive.js'

/** Bit-at-a-time CRC-64/ECMA with BigInt, straight from the definition (reflected poly, ~0 in and out). */
function referenceCrc64(bytes: Uint8Array): bigint {
  const poly = 0xc96c5795d7870f42n
  let crc = 0xffffffffffffffffn
  for (const byte of bytes) {
    crc ^= BigInt(byte)
    for (let bit = 0; bit < 8; bit++) crc = crc & 1n ? (crc >> 1n) ^ poly : crc >> 1n
  }
  return crc ^ 0xffffffffffffffffn
}

/** A hand-rolled BSON encoder for the four types the archive uses, independent of the driver's. */
const cstring = (s: string) => Buffer.concat([Buffer.from(s, 'utf8'), Buffer.from([0])])
const int32 = (n: number) => {
  const b = Buffer.alloc(4)
  b.writeInt32LE(n)
  return b
}
const int64 = (n: bigint) => {
  const b = Buffer.alloc(8)
  b.writeBigInt64LE(n)
  return b
}
type Field = ['string', string, string] | ['int32', string, number] | ['int64', string, bigint] | ['bool', string, boolean]
function doc(...fields: Field[]): Buffer {
  const body = Buffer.concat(
    fields.map(([type, name, value]) => {
      switch (type) {
        case 'string': {
          const bytes = cstring(value as string)
          return Buffer.concat([Buffer.from([0x02]), cstring(name), int32(bytes.length), bytes])
        }
        case 'int32':
          return Buffer.concat([Buffer.from([0x10]), cstring(name), int32(value as number)])
        case 'int64':
          return Buffer.concat([Buffer.from([0x12]), cstring(name), int64(value as bigint)])
        case 'bool':
          return Buffer.concat([Buffer.from([0x08]), cstring(name), Buffer.from([value ? 1 : 0])])
      }
    }),
  )
  return Buffer.concat([int32(body.length + 5), body, Buffer.from([0])])
}
const TERM = Buffer.from('ffffffff', 'hex')

async function bytesOf(plan: ArchivePlan): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of writeArchive(plan)) chunks.push(chunk)
  return Buffer.concat(chunks)
}

async function eventsOf(bytes: Buffer, chunkSize = 7): Promise<ArchiveEvent[]> {
  const pieces: Buffer[] = []
  for (let i = 0; i < bytes.length; i += chunkSize) pieces.push(bytes.subarray(i, i + chunkSize))
  const events: ArchiveEvent[] = []
  for await (const event of parseMongoArchive(Readable.from(pieces))) events.push(event)
  return events
}

async function* from(docs: Uint8Array[]) {
  yield* docs
}

describe('sources/mongodb archive format', () => {
  describe('crc64 (Go hash/crc64 with the ECMA table)', () => {
    it('matches the known check value of "123456789" and the empty input', () => {
      expect(crc64(Buffer.from('123456789'))).to.equal(0x995dc9bbdf1939fan)
      expect(crc64(Buffer.alloc(0))).to.equal(0n)
    })

    it('agrees with a bitwise reference on random inputs, in one go and in pieces', () => {
      for (const size of [1, 7, 64, 1000, 4099]) {
        const data = randomBytes(size)
        const expected = referenceCrc64(data)
        expect(crc64(data)).to.equal(expected)
        const running = new Crc64()
        for (let i = 0; i < size; i += 13) running.update(data.subarray(i, i + 13))
        expect(running.digest()).to.equal(expected)
      }
    })

    it("stores the sum as Go does int64(Sum64()): two's complement", () => {
      expect(new Crc64().update(Buffer.from('123456789')).digestInt64()).to.equal(0x995dc9bbdf1939fan - (1n << 64n))
    })
  })

  describe('writeArchive', () => {
    const d1 = BSON.serialize({ _id: 1, name: 'pen' })
    const d2 = BSON.serialize({ _id: 2, name: 'ink', qty: new BSON.Int32(3) })
    const plan: ArchivePlan = {
      header: { concurrentCollections: 1, serverVersion: '7.0.5', toolVersion: 'test-1' },
      collections: [
        {
          db: 'shop',
          collection: 'items',
          metadata: '{"indexes":[],"collectionName":"items","type":"collection"}',
          type: 'collection',
          documents: () => from([d1, d2]),
        },
        { db: 'shop', collection: 'empty', metadata: '{"indexes":[],"collectionName":"empty"}', type: 'collection', documents: () => from([]) },
        { db: 'shop', collection: 'cheap', metadata: '{"options":{},"collectionName":"cheap","type":"view"}', type: 'view' },
      ],
    }

    it('writes magic, header, preludes, terminator, segments and EOF headers byte for byte', async () => {
      const expected = Buffer.concat([
        Buffer.from([0x6d, 0xe2, 0x99, 0x81]),
        doc(['int32', 'concurrent_collections', 1], ['string', 'version', '0.1'], ['string', 'server_version', '7.0.5'], ['string', 'tool_version', 'test-1']),
        doc(
          ['string', 'db', 'shop'],
          ['string', 'collection', 'items'],
          ['string', 'metadata', plan.collections[0]!.metadata],
          ['int32', 'size', 0],
          ['string', 'type', 'collection'],
        ),
        doc(
          ['string', 'db', 'shop'],
          ['string', 'collection', 'empty'],
          ['string', 'metadata', plan.collections[1]!.metadata],
          ['int32', 'size', 0],
          ['string', 'type', 'collection'],
        ),
        doc(
          ['string', 'db', 'shop'],
          ['string', 'collection', 'cheap'],
          ['string', 'metadata', plan.collections[2]!.metadata],
          ['int32', 'size', 0],
          ['string', 'type', 'view'],
        ),
        TERM,
        doc(['string', 'db', 'shop'], ['string', 'collection', 'items'], ['bool', 'EOF', false], ['int64', 'CRC', 0n]),
        Buffer.from(d1),
        Buffer.from(d2),
        TERM,
        doc(
          ['string', 'db', 'shop'],
          ['string', 'collection', 'items'],
          ['bool', 'EOF', true],
          ['int64', 'CRC', BigInt.asIntN(64, referenceCrc64(Buffer.concat([d1, d2])))],
        ),
        TERM,
        // An empty collection and a view: no segment, only the EOF with the CRC of nothing (mongorestore
        // insists that every namespace of the prelude is closed).
        doc(['string', 'db', 'shop'], ['string', 'collection', 'empty'], ['bool', 'EOF', true], ['int64', 'CRC', 0n]),
        TERM,
        doc(['string', 'db', 'shop'], ['string', 'collection', 'cheap'], ['bool', 'EOF', true], ['int64', 'CRC', 0n]),
        TERM,
      ])
      const actual = await bytesOf(plan)
      expect(actual.toString('hex')).to.equal(expected.toString('hex'))
    })

    it('cuts long collections into several segments', async () => {
      const docs = Array.from({ length: 10 }, (_, i) => BSON.serialize({ _id: i, pad: 'x'.repeat(100) }))
      const bytes = await bytesOf({ ...plan, collections: [{ ...plan.collections[0]!, documents: () => from(docs) }], segmentBytes: 300 })
      const headers = bytes.toString('latin1').split('EOF').length - 1
      // 10 documents of ~130 bytes in segments of >= 300 bytes: 4 segment headers, then the EOF header.
      expect(headers).to.equal(5)
      const events = await eventsOf(bytes)
      expect(events.filter((e) => e.kind === 'document').map((e) => (e as { bytes: Buffer }).bytes.toString('hex'))).to.deep.equal(
        docs.map((d) => Buffer.from(d).toString('hex')),
      )
    })

    it('refuses a document that is not length-prefixed BSON', async () => {
      const bad = { ...plan, collections: [{ ...plan.collections[0]!, documents: () => from([Buffer.from('nope!')]) }] }
      const err = await bytesOf(bad).catch((e: unknown) => e)
      expect(err).to.be.instanceOf(Error)
    })
  })

  describe('parseMongoArchive', () => {
    const docs = Array.from({ length: 50 }, (_, i) =>
      BSON.serialize({ _id: new BSON.ObjectId(), n: new BSON.Long(i), d: new BSON.Double(i), bin: new BSON.Binary(randomBytes(20)) }),
    )
    const plan: ArchivePlan = {
      header: { concurrentCollections: 1, serverVersion: '8.0.0', toolVersion: 't' },
      collections: [
        { db: 'a', collection: 'x', metadata: '{}', type: 'collection', documents: () => from(docs) },
        { db: 'b', collection: 'y', metadata: '{}', type: 'collection', documents: () => from(docs.slice(0, 3)) },
      ],
      segmentBytes: 1000,
    }

    it('round-trips an archive: header, preludes, every document byte for byte, EOFs', async () => {
      const events = await eventsOf(await bytesOf(plan), 5)
      expect(events[0]).to.deep.include({ kind: 'header' })
      expect((events[0] as { header: object }).header).to.deep.equal({ concurrent_collections: 1, version: '0.1', server_version: '8.0.0', tool_version: 't' })
      expect(events.filter((e) => e.kind === 'collection').map((e) => (e as { prelude: { db: string } }).prelude.db)).to.deep.equal(['a', 'b'])
      const documents = events.filter((e) => e.kind === 'document') as { db: string; bytes: Buffer }[]
      expect(documents).to.have.length(53)
      expect(documents.slice(0, 50).map((d) => d.bytes.toString('hex'))).to.deep.equal(docs.map((d) => Buffer.from(d).toString('hex')))
      expect(events.filter((e) => e.kind === 'eof').map((e) => (e as { db: string }).db)).to.deep.equal(['a', 'b'])
    })

    it('reads a gzipped archive (mongodump --gzip --archive)', async () => {
      const events = await eventsOf(gzipSync(await bytesOf(plan)), 4096)
      expect(events.filter((e) => e.kind === 'document')).to.have.length(53)
    })

    it('fails with "CRC mismatch" when a document byte changed', async () => {
      const bytes = await bytesOf(plan)
      const at = bytes.indexOf(Buffer.from(docs[10]!)) + 12
      bytes[at] = bytes[at]! ^ 0xff
      const err = (await eventsOf(bytes).catch((e: unknown) => e)) as Error
      expect(err.message).to.match(/CRC mismatch for a\.x/)
    })

    it('fails on a wrong magic number and on a truncated archive', async () => {
      expect(((await eventsOf(Buffer.from('PK\x03\x04 not an archive')).catch((e: unknown) => e)) as Error).message).to.match(/magic/)
      const bytes = await bytesOf(plan)
      expect(((await eventsOf(bytes.subarray(0, bytes.length - 20)).catch((e: unknown) => e)) as Error).message).to.match(
        /truncated|not terminated|unexpected end/,
      )
    })
  })

  describe('collectionMetadata', () => {
    it("is canonical Extended JSON in mongodump's key order, omitting empty options", () => {
      const uuid = new BSON.Binary(Buffer.from('00112233445566778899aabbccddeeff', 'hex'), 4)
      const indexes = [
        { v: new BSON.Int32(2), key: { _id: new BSON.Int32(1) }, name: '_id_' },
        { v: new BSON.Int32(2), key: { sku: new BSON.Int32(1), at: new BSON.Double(-1) }, name: 'sku_1_at_-1', unique: true },
      ]
      const capped = collectionMetadata({ name: 'events', type: 'collection', options: { capped: true, size: new BSON.Int32(4096) }, info: { uuid } }, indexes)
      expect(capped).to.equal(
        '{"options":{"capped":true,"size":{"$numberInt":"4096"}},"indexes":[{"v":{"$numberInt":"2"},"key":{"_id":{"$numberInt":"1"}},"name":"_id_"},' +
          '{"v":{"$numberInt":"2"},"key":{"sku":{"$numberInt":"1"},"at":{"$numberDouble":"-1.0"}},"name":"sku_1_at_-1","unique":true}],' +
          '"uuid":"00112233445566778899aabbccddeeff","collectionName":"events","type":"collection"}',
      )
      expect(collectionMetadata({ name: 'plain', options: {} }, [])).to.equal('{"indexes":[],"collectionName":"plain"}')
    })
  })
})
