/**
 * @module sources/mongodb/parseMongoArchive
 * Reads a mongodump archive (ours or mongodump's, gzipped or not) as a stream of events: the header,
 * each collection's prelude, each raw document, each namespace's end. Memory holds one document at a
 * time. Every namespace's CRC-64 is checked at its EOF header, like mongorestore does.
 */
import type { Readable } from 'node:stream'
import { createGunzip } from 'node:zlib'
import { BSON } from 'mongodb'
import { Crc64 } from './crc64.js'
import { magicNumber } from './archiveFormat.js'

export interface ParsedHeader {
  concurrent_collections: number
  version: string
  server_version: string
  tool_version: string
}

export interface ParsedPrelude {
  db: string
  collection: string
  metadata: string
  size: number
  type?: string
}

export type ArchiveEvent =
  | { kind: 'header'; header: ParsedHeader }
  | { kind: 'collection'; prelude: ParsedPrelude }
  | { kind: 'document'; db: string; collection: string; bytes: Buffer }
  | { kind: 'eof'; db: string; collection: string; crc: bigint }

const TERMINATOR = 0xffffffff

/** Pulls exact byte counts out of a chunked stream. */
class ByteReader {
  private chunks: Buffer[] = []
  private buffered = 0
  private readonly iterator: AsyncIterator<Buffer>

  constructor(stream: AsyncIterable<Buffer>) {
    this.iterator = stream[Symbol.asyncIterator]()
  }

  /** `n` bytes, or undefined at a clean end of stream (nothing buffered). */
  async read(n: number): Promise<Buffer | undefined> {
    while (this.buffered < n) {
      const next = await this.iterator.next()
      if (next.done) {
        if (this.buffered === 0) return undefined
        throw new Error(`mongodump archive: truncated (wanted ${n} bytes, ${this.buffered} left)`)
      }
      this.chunks.push(next.value)
      this.buffered += next.value.length
    }
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks)
    const out = all.subarray(0, n)
    const rest = all.subarray(n)
    this.chunks = rest.length ? [rest] : []
    this.buffered = rest.length
    return out
  }

  async need(n: number): Promise<Buffer> {
    const bytes = await this.read(n)
    if (!bytes) throw new Error('mongodump archive: unexpected end')
    return bytes
  }
}

/** Reads one length-prefixed block: a BSON document, or `'terminator'`, or undefined at the end. */
async function readBlock(reader: ByteReader): Promise<Buffer | 'terminator' | undefined> {
  const prefix = await reader.read(4)
  if (!prefix) return undefined
  const length = prefix.readUInt32LE(0)
  if (length === TERMINATOR) return 'terminator'
  if (length < 5 || length > 48 * 1024 * 1024) throw new Error(`mongodump archive: bad document length ${length}`)
  return Buffer.concat([prefix, await reader.need(length - 4)])
}

/** Whether `bytes` start like gzip (the archive itself starts with the magic number). */
const isGzip = (bytes: Buffer) => bytes[0] === 0x1f && bytes[1] === 0x8b

export async function* parseMongoArchive(input: Readable): AsyncGenerator<ArchiveEvent> {
  // Peek at the first chunk to decide whether to gunzip.
  const source = input[Symbol.asyncIterator]() as AsyncIterator<Buffer>
  const first = await source.next()
  if (first.done) throw new Error('mongodump archive: empty input')
  async function* rest(): AsyncGenerator<Buffer> {
    yield first.value as Buffer
    for (let next = await source.next(); !next.done; next = await source.next()) yield next.value as Buffer
  }
  let chunks: AsyncIterable<Buffer> = rest()
  if (isGzip(first.value as Buffer)) {
    const gunzip = createGunzip()
    void (async () => {
      try {
        for await (const chunk of rest()) if (!gunzip.write(chunk)) await new Promise((r) => gunzip.once('drain', r))
        gunzip.end()
      } catch (err) {
        gunzip.destroy(err as Error)
      }
    })()
    chunks = gunzip
  }
  const reader = new ByteReader(chunks)
  const magic = await reader.need(4)
  if (magic.readUInt32LE(0) !== magicNumber) throw new Error('not a mongodump archive (bad magic number)')
  const header = await readBlock(reader)
  if (!(header instanceof Buffer)) throw new Error('mongodump archive: missing header')
  yield { kind: 'header', header: BSON.deserialize(header) as ParsedHeader }
  for (;;) {
    const block = await readBlock(reader)
    if (block === 'terminator') break
    if (!block) throw new Error('mongodump archive: prelude not terminated')
    yield { kind: 'collection', prelude: BSON.deserialize(block) as ParsedPrelude }
  }
  const crcs = new Map<string, Crc64>()
  for (;;) {
    const block = await readBlock(reader)
    if (block === undefined) return
    if (block === 'terminator') throw new Error('mongodump archive: terminator without a namespace header')
    const ns = BSON.deserialize(block, { promoteLongs: false }) as { db: string; collection: string; EOF: boolean; CRC: BSON.Long | number }
    const key = `${ns.db}.${ns.collection}`
    if (ns.EOF) {
      const expected = typeof ns.CRC === 'number' ? BigInt(ns.CRC) : ns.CRC.toBigInt()
      const actual = (crcs.get(key) ?? new Crc64()).digestInt64()
      if (actual !== expected) throw new Error(`mongodump archive: CRC mismatch for ${key}`)
      crcs.delete(key)
      if ((await readBlock(reader)) !== 'terminator') throw new Error(`mongodump archive: EOF header of ${key} not terminated`)
      yield { kind: 'eof', db: ns.db, collection: ns.collection, crc: expected }
      continue
    }
    const crc = crcs.get(key) ?? new Crc64()
    crcs.set(key, crc)
    for (;;) {
      const document = await readBlock(reader)
      if (document === 'terminator') break
      if (!document) throw new Error(`mongodump archive: segment of ${key} not terminated`)
      crc.update(document)
      yield { kind: 'document', db: ns.db, collection: ns.collection, bytes: document }
    }
  }
}
