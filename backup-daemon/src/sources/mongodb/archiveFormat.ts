/**
 * @module sources/mongodb/archiveFormat
 * The mongodump archive format (mongo-tools `common/archive/spec.md`), the encoding half:
 *
 *     magic 0x8199e26d (LE) · header · collection-metadata* · 0xFFFFFFFF
 *     (namespace-header · document+ · 0xFFFFFFFF | eof-header · 0xFFFFFFFF)*
 *
 * Field names, order and BSON types follow mongo-tools' Go structs (`archive.go`): the header's
 * `concurrent_collections` is an int32, a prelude's `size` an int32 (mongodump leaves it 0), `type`
 * always present, a namespace header's `CRC` an int64 (0 except on EOF).
 */
import { BSON } from 'mongodb'

export const magicNumber = 0x8199e26d
export const terminator = Buffer.from([0xff, 0xff, 0xff, 0xff])
export const archiveFormatVersion = '0.1'

export interface ArchiveHeader {
  concurrentCollections: number
  serverVersion: string
  toolVersion: string
}

export interface CollectionPrelude {
  db: string
  collection: string
  /** Canonical Extended JSON v2 of `{options?, indexes, uuid?, collectionName, type?}` (see `collectionMetadata`). */
  metadata: string
  /** `collection`, `view` or `timeseries` (listCollections' `type`). */
  type: string
}

export function encodeMagic(): Buffer {
  const bytes = Buffer.alloc(4)
  bytes.writeUInt32LE(magicNumber)
  return bytes
}

export function encodeHeader(header: ArchiveHeader): Buffer {
  return Buffer.from(
    BSON.serialize({
      concurrent_collections: new BSON.Int32(header.concurrentCollections),
      version: archiveFormatVersion,
      server_version: header.serverVersion,
      tool_version: header.toolVersion,
    }),
  )
}

export function encodePrelude(prelude: CollectionPrelude): Buffer {
  return Buffer.from(
    BSON.serialize({ db: prelude.db, collection: prelude.collection, metadata: prelude.metadata, size: new BSON.Int32(0), type: prelude.type }),
  )
}

/** A segment header (`eof` false, CRC 0) or the namespace's end (`eof` true with the CRC as int64). */
export function encodeNamespaceHeader(db: string, collection: string, eof: boolean, crc: bigint = 0n): Buffer {
  return Buffer.from(BSON.serialize({ db, collection, EOF: eof, CRC: BSON.Long.fromBigInt(BigInt.asIntN(64, crc)) }))
}
