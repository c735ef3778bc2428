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

/** The CRC-32 table (IEEE 802.3, reflected), for a Node without `zlib.crc32`. */
let table: Int32Array | undefined

/** `zlib.crc32`'s result in JavaScript: ~0.3 GiB/s instead of ~6, but the same digest. */
export function crc32Fallback(data: Uint8Array, value = 0): number {
  if (!table) {
    table = new Int32Array(256)
    for (let n = 0; n < 256; n++) {
      let c = n
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
      table[n] = c
    }
  }
  let crc = ~value
  for (let i = 0; i < data.length; i++) crc = table[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8)
  return ~crc >>> 0
}

/**
 * The crc32 of `data` continued from `value` (0 to start): zlib's, else the fallback above. zlib's for
 * every length: a JavaScript crc (slicing by 8) was faster on a few hundred bytes in a warm loop, but not
 * in a backup of 20k tiny files, where the tar worker is new each run and its code starts cold (measured).
 */
export const crc32: (data: Uint8Array, value: number) => number = typeof zlib.crc32 === 'function' ? zlib.crc32 : crc32Fallback
