/**
 * @module tar/snapshotRecord
 * The record a backup writes as the last entry of its tar (`.backup-daemon/record.json`): for every file
 * entry its path, size and digest (`tar/fileDigest.ts`, computed by the tar writer as it writes the bytes),
 * and for each source that records something (a database: its tables and row counts at dump time) that
 * source's own JSON. A restore drill restores the snapshot into throwaway targets and compares them with it.
 * It travels inside the snapshot, so it is the same whatever the storage or repository kind, and a snapshot
 * carries the reference it is checked against. Restores skip it (`restore/extractTo`, `restoreDatabases`).
 */
import type { DigestKind } from './fileDigest.js'
import { readRecord } from './recordReader.js'

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

/** Parses and checks the record's shape; throws a message naming what is wrong. Its files all in memory: a drill reads them one by one (`readRecord`). */
export function parseRecord(bytes: Buffer): SnapshotRecord {
  const view = readRecord(bytes, recordEntryName)
  return { version: 1, digest: view.digest, files: [...view.files()], sources: view.sources }
}
