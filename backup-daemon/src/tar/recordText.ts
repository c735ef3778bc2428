/**
 * @module tar/recordText
 * The snapshot record's `files` items (`tar/snapshotRecord.ts`) as JSON text, built by the tar writer as
 * it finishes each file: `["path",size,"digest"]`, the same text `JSON.stringify` gives for the
 * `RecordedFile` array, so readers (`parseRecord`) see no difference. Built here rather than by
 * stringifying arrays on the main thread: on 20k tiny files the arrays, their copy from the tar worker
 * and their JSON cost ~1.3 µs a file, ~10% of a plain tar backup (bench/daemon-record-cost). Now one
 * string per step crosses from the worker, and a file costs no object of its own (its crc32 is a number).
 */
import { createHash, type Hash } from 'node:crypto'
import { crc32, crc32Hex, type DigestKind } from './fileDigest.js'

/**
 * Whether `text` can go between JSON quotes as it is: no control character, quote or backslash (which
 * JSON escapes), and no UTF-16 surrogate (`JSON.stringify` escapes a lone one; a pair it leaves as it is,
 * but a path with one is rare enough to take the slow path).
 */
function plainJson(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return false
  }
  return true
}

/** A JSON string literal of `text`: `JSON.stringify(text)`, without its cost for the usual path (~0.1 µs a file, measured). */
export function jsonString(text: string): string {
  return plainJson(text) ? `"${text}"` : JSON.stringify(text)
}

/** `JSON.stringify([path, size, digest])` (a digest is lower-case hex: never escaped). */
export function recordItem(path: string, size: number, digest: string): string {
  return `[${jsonString(path)},${size},"${digest}"]`
}

/** The items of the files recorded so far, one file at a time: `start`, its bytes through `update`, `end`. */
export class RecordText {
  /** The file being digested: its name, size and crc32 (md5, sha256: a hash). */
  private active = false
  private name = ''
  private size = 0
  private crc = 0
  private hash: Hash | undefined
  /** The finished files' items, each after a comma. */
  private text = ''

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
    const digest = this.hash ? this.hash.digest('hex') : crc32Hex(this.crc)
    this.hash = undefined
    this.text += `,${recordItem(this.name, this.size, digest)}`
  }

  /** The finished files' items, comma-joined ('' for none), each once. */
  take(): string {
    // Every item went in after a comma: the first one's is not the caller's.
    const out = this.text.slice(1)
    this.text = ''
    return out
  }
}
