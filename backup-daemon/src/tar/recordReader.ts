/**
 * @module tar/recordReader
 * The snapshot's record (`tar/snapshotRecord.ts`) read without building it: a tree of a million files has a
 * record of ~50 MB, which `JSON.parse` turned into a million arrays (over a gigabyte with the drill's own
 * copies: issue 42 measured a drill of such a snapshot at 2.06 GB). Here the record's bytes are scanned once
 * to find its parts and check every file's shape and path; its files are then read one at a time, each
 * tuple parsed on its own, as often as a caller goes through them.
 */
import { entryComponents, UnsafeEntryError } from './entryPath.js'
import type { DigestKind } from './fileDigest.js'
import type { RecordedFile, SnapshotRecord } from './snapshotRecord.js'

/** A checked record whose files are read as they are needed. */
export interface RecordView {
  digest: DigestKind
  sources: SnapshotRecord['sources']
  /** How many files it records. */
  fileCount: number
  /** Its files in archive order, parsed one by one (each call reads them again). */
  files(): Generator<RecordedFile>
}

const quote = 0x22
const backslash = 0x5c
const isSpace = (c: number | undefined) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09

class RecordSyntaxError extends Error {}

/** The index just past the JSON value starting at `i` (a string, an object or array, or a literal). */
function valueEnd(bytes: Buffer, i: number): number {
  const first = bytes[i]
  if (first === quote) {
    for (let j = i + 1; j < bytes.length; j++) {
      if (bytes[j] === backslash) j++
      else if (bytes[j] === quote) return j + 1
    }
    throw new RecordSyntaxError('a string is not closed')
  }
  if (first === 0x7b || first === 0x5b) {
    let depth = 0
    for (let j = i; j < bytes.length; j++) {
      const c = bytes[j]
      if (c === quote) j = valueEnd(bytes, j) - 1
      else if (c === 0x7b || c === 0x5b) depth++
      else if ((c === 0x7d || c === 0x5d) && --depth === 0) return j + 1
    }
    throw new RecordSyntaxError('an object or array is not closed')
  }
  let j = i
  while (j < bytes.length && !isSpace(bytes[j]) && bytes[j] !== 0x2c && bytes[j] !== 0x7d && bytes[j] !== 0x5d) j++
  if (j === i) throw new RecordSyntaxError(`unexpected character at byte ${i}`)
  return j
}

const skipSpace = (bytes: Buffer, i: number) => {
  while (isSpace(bytes[i])) i++
  return i
}

const parse = (bytes: Buffer, start: number, end: number): unknown => JSON.parse(bytes.toString('utf8', start, end))

/** The members of the JSON object or array spanning `[start, end)`: each member's key (objects) and value span. */
function* members(bytes: Buffer, start: number, end: number, object: boolean): Generator<{ key?: string; start: number; end: number }> {
  let i = skipSpace(bytes, start + 1)
  if (bytes[i] === (object ? 0x7d : 0x5d)) return
  for (;;) {
    let key: string | undefined
    if (object) {
      if (bytes[i] !== quote) throw new RecordSyntaxError(`a key was expected at byte ${i}`)
      const keyEnd = valueEnd(bytes, i)
      key = parse(bytes, i, keyEnd) as string
      i = skipSpace(bytes, keyEnd)
      if (bytes[i] !== 0x3a) throw new RecordSyntaxError(`":" was expected at byte ${i}`)
      i = skipSpace(bytes, i + 1)
    }
    const valueStop = valueEnd(bytes, i)
    if (valueStop > end) throw new RecordSyntaxError('a value runs past its container')
    yield { ...(key !== undefined && { key }), start: i, end: valueStop }
    i = skipSpace(bytes, valueStop)
    if (bytes[i] === 0x2c) i = skipSpace(bytes, i + 1)
    else if (i === end - 1) return
    else throw new RecordSyntaxError(`"," was expected at byte ${i}`)
  }
}

const fileOk = (f: unknown): f is RecordedFile => Array.isArray(f) && typeof f[0] === 'string' && typeof f[1] === 'number' && typeof f[2] === 'string'

/** Checks the record's shape and every file's path (throws a message naming what is wrong) and gives a view of it. */
export function readRecord(bytes: Buffer, entryName: string): RecordView {
  const notJson = (err: Error) => new Error(`the snapshot's record (${entryName}) is not JSON: ${err.message}`, { cause: err })
  const notRecord = () => new Error(`the snapshot's record (${entryName}) is not a version 1 record`)
  const head: Record<string, unknown> = {}
  let files: { start: number; end: number } | undefined
  try {
    const start = skipSpace(bytes, 0)
    if (bytes[start] !== 0x7b) throw notRecord()
    const end = valueEnd(bytes, start)
    if (skipSpace(bytes, end) !== bytes.length) throw new RecordSyntaxError('text follows the record')
    for (const member of members(bytes, start, end, true)) {
      if (member.key === 'files') files = member
      else head[member.key!] = parse(bytes, member.start, member.end)
    }
  } catch (err) {
    throw err instanceof RecordSyntaxError || err instanceof SyntaxError ? notJson(err) : err
  }
  const { version, digest, sources } = head
  if (version !== 1 || !['crc32', 'md5', 'sha256'].includes(digest as string) || typeof sources !== 'object' || sources === null) throw notRecord()
  if (!files || bytes[files.start] !== 0x5b) throw notRecord()
  const span = files
  const each = function* (): Generator<RecordedFile> {
    for (const member of members(bytes, span.start, span.end, false)) yield parse(bytes, member.start, member.end) as RecordedFile
  }
  let fileCount = 0
  try {
    for (const file of each()) {
      if (!fileOk(file)) throw notRecord()
      // A snapshot is untrusted input: a drill reads the files its record names, so none may name a path outside.
      const checked = entryComponents(file[0])
      if ('problem' in checked) throw new UnsafeEntryError(`the snapshot's record (${entryName}): file`, file[0], checked.problem)
      fileCount++
    }
  } catch (err) {
    throw err instanceof RecordSyntaxError || err instanceof SyntaxError ? notJson(err) : err
  }
  return { digest: digest as DigestKind, sources: sources as SnapshotRecord['sources'], fileCount, files: each }
}
