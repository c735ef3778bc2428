/**
 * @module tar/recordText
 * The snapshot record's `files` items (`tar/snapshotRecord.ts`) as UTF-8 JSON bytes, built by the tar writer
 * as it finishes each file: `["path",size,"digest"]`, the same text `JSON.stringify` gives for the
 * `RecordedFile` array, so readers (`parseRecord`) see no difference.
 *
 * Why bytes, written here: on 20k tiny files the record is one item per ~1 KiB of tar, and its cost is per
 * file (bench/daemon-record-cost). Arrays per file, cloned from the tar worker and stringified on the main
 * thread, cost ~1.3 µs a file; one string per step still had to be flattened, copied across by
 * `postMessage` and encoded again for the spool file (~0.5 µs a file, profiled). Bytes in memory of their
 * own move to the main thread without a copy (transferred) and go to the record's spool as they are.
 */
import { createHash, type Hash } from 'node:crypto'
import { crc32, type DigestKind } from './fileDigest.js'

const comma = 0x2c
const openBracket = 0x5b
const closeBracket = 0x5d
const quote = 0x22
/** Char codes of the lower-case hex digits. */
const hexDigits = Uint8Array.from('0123456789abcdef', (c) => c.charCodeAt(0))
const encoder = new TextEncoder()

/** The items of the files recorded so far, one file at a time: `start`, its bytes through `update`, `end`. */
export class RecordText {
  /** The file being digested: its name, size and crc32 (md5, sha256: a hash). */
  private active = false
  private name = ''
  private size = 0
  private crc = 0
  private hash: Hash | undefined
  /** The finished files' items, each after a comma, in `bytes` up to `length`. */
  private bytes = new Uint8Array(16 * 1024)
  private length = 0

  constructor(private readonly kind: DigestKind) {}

  start(name: string, size: number): void {
    this.end()
    this.active = true
    this.name = name
    this.size = size
    this.crc = 0
    if (this.kind !== 'crc32') this.hash = createHash(this.kind)
  }

  update(data: Uint8Array): void {
    if (!this.active) return
    if (this.hash) this.hash.update(data)
    else this.crc = crc32(data, this.crc)
  }

  /** The file being digested is finished (nothing when none is). */
  end(): void {
    if (!this.active) return
    this.active = false
    const { name } = this
    // Room for a plain path, the size's digits, the longest digest (sha256: 64 digits) and the punctuation.
    this.reserve(name.length + 96)
    let at = this.length
    const bytes = this.bytes
    bytes[at++] = comma
    bytes[at++] = openBracket
    const afterBracket = at
    bytes[at++] = quote
    // The path's characters, copied as they are checked (one pass): anything but plain ASCII starts again below.
    let plain = true
    for (let i = 0; i < name.length; i++) {
      const c = name.charCodeAt(i)
      if (c < 0x20 || c === 0x22 || c === 0x5c || c > 0x7e) {
        plain = false
        break
      }
      bytes[at++] = c
    }
    if (plain) {
      bytes[at++] = quote
    } else {
      const json = JSON.stringify(name)
      this.length = afterBracket
      // At most 3 UTF-8 bytes for each UTF-16 unit (a pair: 4 for two).
      this.reserve(json.length * 3 + 96)
      at = afterBracket + encoder.encodeInto(json, this.bytes.subarray(afterBracket)).written
    }
    at = this.writeSizeAndDigest(at)
    this.length = at
    this.hash = undefined
  }

  /** The finished files' items, comma-joined (empty for none), each once, in memory of their own (transferable). */
  take(): Uint8Array {
    // Every item went in after a comma: the first one's is not the caller's.
    const out = this.length > 0 ? this.bytes.slice(1, this.length) : new Uint8Array(0)
    this.length = 0
    return out
  }

  /** `,size,"digest"]` from `at`; returns the end. */
  private writeSizeAndDigest(from: number): number {
    const bytes = this.bytes
    let at = from
    bytes[at++] = comma
    // The size's decimal digits, from the last one back (no string, no view: this runs for every file).
    let digits = 1
    for (let power = 10; power <= this.size; power *= 10) digits++
    at += digits
    let rest = this.size
    for (let i = at - 1; i >= at - digits; i--) {
      bytes[i] = 0x30 + (rest % 10)
      rest = Math.floor(rest / 10)
    }
    bytes[at++] = comma
    bytes[at++] = quote
    if (this.hash) {
      for (const byte of this.hash.digest()) {
        bytes[at++] = hexDigits[byte >>> 4]!
        bytes[at++] = hexDigits[byte & 0xf]!
      }
    } else {
      for (let shift = 28; shift >= 0; shift -= 4) bytes[at++] = hexDigits[(this.crc >>> shift) & 0xf]!
    }
    bytes[at++] = quote
    bytes[at++] = closeBracket
    return at
  }

  /** At least `room` bytes free after `length`. */
  private reserve(room: number): void {
    if (this.length + room <= this.bytes.length) return
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + room))
    grown.set(this.bytes.subarray(0, this.length))
    this.bytes = grown
  }
}
