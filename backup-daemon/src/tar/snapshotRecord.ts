/**
 * @module tar/snapshotRecord
 * The record a backup writes as the last entry of its tar (`.backup-daemon/record.json`): for every file
 * entry its path, size and digest (`tar/fileDigest.ts`, computed by the tar writer as it writes the bytes),
 * and for each source that records something (a database: its tables and row counts at dump time) that
 * source's own JSON. A restore drill restores the snapshot into throwaway targets and compares them with it.
 * It travels inside the snapshot, so it is the same whatever the storage or repository kind, and a snapshot
 * carries the reference it is checked against. Restores skip it (`restore/extractTo`, `restoreDatabases`).
 */
import { entryComponents, UnsafeEntryError } from './entryPath.js'
import type { DigestKind } from './fileDigest.js'

/** The record's folder and entry name inside the tar (a source's name cannot start with a dot). */
export const recordFolder = '.backup-daemon'
export const recordEntryName = `${recordFolder}/record.json`

/** One file entry: archive path, bytes as archived, digest of those bytes. */
export type RecordedFile = [path: string, size: number, digest: string]

/** What one source recorded at backup time (its kind's own JSON, e.g. `{ tables: { posts: 12 } }`). */
export type SourceRecord = { [key: string]: unknown }

export interface SnapshotRecord {
  version: 1
  digest: DigestKind
  /** Every file entry of the tar in archive order (the record itself excluded). */
  files: RecordedFile[]
  /** By source name: its type and what its kind recorded. */
  sources: Record<string, { type: string; recorded: SourceRecord }>
}

/** Whether a tar entry belongs to the record (`./` prefixes as tar writes them are ignored). */
export function isRecordEntry(name: string): boolean {
  const clean = name.replace(/^(\.\/)+/, '')
  return clean === recordFolder || clean === `${recordFolder}/` || clean.startsWith(`${recordFolder}/`)
}

/** Parses and checks the record's shape; throws a message naming what is wrong. */
export function parseRecord(bytes: Buffer): SnapshotRecord {
  let value: unknown
  try {
    value = JSON.parse(bytes.toString('utf8'))
  } catch (err) {
    throw new Error(`the snapshot's record (${recordEntryName}) is not JSON: ${(err as Error).message}`, { cause: err })
  }
  const record = value as Partial<SnapshotRecord> | null
  const fileOk = (f: unknown) => Array.isArray(f) && typeof f[0] === 'string' && typeof f[1] === 'number' && typeof f[2] === 'string'
  if (
    !record ||
    record.version !== 1 ||
    !['crc32', 'md5', 'sha256'].includes(record.digest as string) ||
    !Array.isArray(record.files) ||
    !record.files.every(fileOk) ||
    typeof record.sources !== 'object' ||
    record.sources === null
  ) {
    throw new Error(`the snapshot's record (${recordEntryName}) is not a version 1 record`)
  }
  // A snapshot is untrusted input: a drill reads the files its record names, so none may name a path outside.
  for (const [path] of record.files as RecordedFile[]) {
    const checked = entryComponents(path)
    if ('problem' in checked) throw new UnsafeEntryError(`the snapshot's record (${recordEntryName}): file`, path, checked.problem)
  }
  return record as SnapshotRecord
}
