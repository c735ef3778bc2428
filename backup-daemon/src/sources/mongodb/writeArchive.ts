/**
 * @module sources/mongodb/writeArchive
 * Produces a mongodump archive from a plan: the header, one prelude per collection, then each
 * collection's raw BSON documents in segments of about `segmentBytes`, closed by an EOF header with
 * the CRC-64 of the namespace's documents. Collections are written one after the other (mongodump
 * interleaves parallel dumps; the format allows both and mongorestore reads either).
 */
import { Crc64 } from './crc64.js'
import { encodeHeader, encodeMagic, encodeNamespaceHeader, encodePrelude, terminator, type ArchiveHeader, type CollectionPrelude } from './archiveFormat.js'

export interface ArchiveCollection extends CollectionPrelude {
  /**
   * Raw BSON documents (each a complete, length-prefixed document). Absent for a view: it gets its
   * prelude (mongorestore recreates it from the metadata) and an EOF header with no data, because
   * mongorestore's demultiplexer fails with "archive finished before all collections were seen"
   * unless every namespace of the prelude is closed by an EOF.
   */
  documents?(): AsyncIterable<Uint8Array>
}

export interface ArchivePlan {
  header: ArchiveHeader
  collections: ArchiveCollection[]
  /** Bytes of documents per segment before a new segment starts. @default 16 MiB */
  segmentBytes?: number
  /**
   * Called once the last collection is written, with the documents written per `db.collection` (views
   * left out): what the archive holds, for a restore drill (`MongodbSource.recorded`).
   */
  onWritten?(documents: Record<string, number>): void
}

/** The archive as chunks (a prelude chunk, then about one chunk per document). */
export async function* writeArchive(plan: ArchivePlan): AsyncGenerator<Buffer> {
  const segmentBytes = plan.segmentBytes ?? 16 * 1024 * 1024
  yield Buffer.concat([encodeMagic(), encodeHeader(plan.header), ...plan.collections.map(encodePrelude), terminator])
  const written: Record<string, number> = {}
  for (const collection of plan.collections) {
    const crc = new Crc64()
    let inSegment = -1
    let count = 0
    for await (const document of collection.documents?.() ?? []) {
      count++
      const bytes = Buffer.from(document.buffer, document.byteOffset, document.byteLength)
      if (bytes.length < 5 || bytes.readInt32LE(0) !== bytes.length)
        throw new Error(`${collection.db}.${collection.collection}: a document is not length-prefixed BSON`)
      crc.update(bytes)
      if (inSegment >= segmentBytes) {
        yield terminator
        inSegment = -1
      }
      if (inSegment < 0) {
        yield encodeNamespaceHeader(collection.db, collection.collection, false)
        inSegment = 0
      }
      // A copy: the driver may reuse the memory of a raw document once the next one is read.
      yield Buffer.from(bytes)
      inSegment += bytes.length
    }
    if (inSegment >= 0) yield terminator
    yield Buffer.concat([encodeNamespaceHeader(collection.db, collection.collection, true, crc.digestInt64()), terminator])
    if (collection.documents) written[`${collection.db}.${collection.collection}`] = count
  }
  plan.onWritten?.(written)
}
