/**
 * @module tar/fileDigest
 * The digest of a file's bytes that a snapshot's record keeps for every file (`tar/snapshotRecord.ts`) and
 * a restore drill checks the restored file against. It guards against damage and mistakes (a truncated or
 * altered entry, a restore that wrote the wrong bytes), not against an attacker: every stored part is
 * already checked against its sha256 in the manifest. So the cheapest is chosen: zlib's crc32 (Node 20.15+),
 * measured on this machine at ~5.5 GiB/s on 256 KiB reads against sha256's ~1.3 GiB/s and md5's ~0.5 GiB/s
 * (`bench/daemon-record-cost.bench.ts` compares the three inside a whole backup).
 */
import { createHash } from 'node:crypto'
import * as zlib from 'node:zlib'

export type DigestKind = 'crc32' | 'md5' | 'sha256'

/** The digest new snapshots record. */
export const recordDigest: DigestKind = 'crc32'

/** A digest fed piece by piece. */
export interface FileDigest {
  update(data: Uint8Array): void
  /** Lower-case hex (crc32: 8 digits). */
  hex(): string
}

/**
 * zlib's crc32 (native; Node 20.15+ and 22.2+, so every supported Node), else the table-driven one below.
 * A class rather than closures: a digest is made for every file, and on 20k tiny files the two closures
 * per file (each named by tsx/esbuild's `__name` helper under the test and bench loader) cost about as
 * much as the crc itself (measured, bench/daemon-record-cost.bench.ts).
 */
class Crc32Digest implements FileDigest {
  private value = 0
  update(data: Uint8Array): void {
    this.value = crc32(data, this.value)
  }
  hex(): string {
    return crc32Hex(this.value)
  }
}

/** Two lower-case hex digits for each byte value. */
const byteHex = Array.from({ length: 256 }, (_, n) => n.toString(16).padStart(2, '0'))

/**
 * A crc32 as 8 lower-case hex digits, from a table: `toString(16).padStart(8, '0')` took ~0.3 µs a file
 * (measured on Node 20, in a loop building record lines), as much as the rest of a tiny file's record.
 */
export function crc32Hex(value: number): string {
  return byteHex[value >>> 24]! + byteHex[(value >>> 16) & 0xff]! + byteHex[(value >>> 8) & 0xff]! + byteHex[value & 0xff]!
}

class HashDigest implements FileDigest {
  private readonly hash
  constructor(kind: 'md5' | 'sha256') {
    this.hash = createHash(kind)
  }
  update(data: Uint8Array): void {
    this.hash.update(data)
  }
  hex(): string {
    return this.hash.digest('hex')
  }
}

export function newDigest(kind: DigestKind): FileDigest {
  return kind === 'crc32' ? new Crc32Digest() : new HashDigest(kind)
}

/**
 * The CRC-32 tables (IEEE 802.3, reflected) for slicing by 8: table k (at `k * 256`) advances a byte's crc
 * by k more zero bytes, so eight bytes cost eight lookups and one dependent step instead of eight.
 */
let tables: Int32Array | undefined

function makeTables(): Int32Array {
  const t = new Int32Array(8 * 256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    t[n] = c
  }
  for (let n = 0; n < 256; n++) for (let k = 1, c = t[n]!; k < 8; k++) t[k * 256 + n] = c = t[c & 0xff]! ^ (c >>> 8)
  return t
}

/**
 * `zlib.crc32`'s result in JavaScript (slicing by 8): ~1 GiB/s instead of ~6 on large data, but faster
 * than zlib's on a few hundred bytes, where a call into zlib costs ~0.15 µs whatever the length (measured:
 * 64 bytes 70 ns against 200, 164 bytes 110 against 160). Used for those, and on a Node without `zlib.crc32`.
 */
export function crc32Fallback(data: Uint8Array, value = 0): number {
  const t = (tables ??= makeTables())
  let crc = ~value
  const n = data.length
  const whole = n - (n & 7)
  let i = 0
  for (; i < whole; i += 8) {
    const lo = crc ^ (data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24))
    const hi = data[i + 4]! | (data[i + 5]! << 8) | (data[i + 6]! << 16) | (data[i + 7]! << 24)
    crc =
      t[1792 + (lo & 0xff)]! ^
      t[1536 + ((lo >>> 8) & 0xff)]! ^
      t[1280 + ((lo >>> 16) & 0xff)]! ^
      t[1024 + (lo >>> 24)]! ^
      t[768 + (hi & 0xff)]! ^
      t[512 + ((hi >>> 8) & 0xff)]! ^
      t[256 + ((hi >>> 16) & 0xff)]! ^
      t[hi >>> 24]!
  }
  for (; i < n; i++) crc = t[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8)
  return ~crc >>> 0
}

/** Below this many bytes the JavaScript crc is faster than a call into zlib (see `crc32Fallback`). */
const smallData = 256
const zlibCrc32 = typeof zlib.crc32 === 'function' ? zlib.crc32 : undefined

/** The crc32 of `data` continued from `value` (0 to start): zlib's, or the JavaScript one for a few bytes. */
export function crc32(data: Uint8Array, value: number): number {
  return zlibCrc32 && data.length >= smallData ? zlibCrc32(data, value) : crc32Fallback(data, value)
}
