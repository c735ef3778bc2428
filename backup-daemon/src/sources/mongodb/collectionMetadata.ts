/**
 * @module sources/mongodb/collectionMetadata
 * The `metadata` string of a prelude, as mongodump's `metadata_dump.go` builds it: canonical Extended
 * JSON v2 of `{options (omitted when empty), indexes, uuid (hex, omitted when absent), collectionName,
 * type (omitted when empty)}`. Values must come from the server with `promoteValues: false` so int32,
 * int64 and double keep their types through `$numberInt` / `$numberLong` / `$numberDouble`.
 */
import { BSON } from 'mongodb'

export interface CollectionInfo {
  name: string
  type?: string
  options?: Record<string, unknown>
  info?: { uuid?: BSON.Binary; readOnly?: boolean }
}

export function collectionMetadata(info: CollectionInfo, indexes: Record<string, unknown>[]): string {
  const meta: Record<string, unknown> = {}
  if (info.options && Object.keys(info.options).length > 0) meta.options = info.options
  meta.indexes = indexes
  const uuid = info.info?.uuid
  if (uuid) meta.uuid = Buffer.from(uuid.buffer).toString('hex')
  meta.collectionName = info.name
  if (info.type) meta.type = info.type
  return BSON.EJSON.stringify(meta, { relaxed: false })
}
