/**
 * @module sources/mongodb/crc64
 * CRC-64 with the ECMA-182 polynomial in Go's `hash/crc64` form (reflected, init and final xor all
 * ones; also known as CRC-64/XZ): what mongodump writes in each namespace's EOF header and what
 * mongorestore checks. The 64-bit state lives in two 32-bit halves: BigInt arithmetic per byte would
 * be far too slow for gigabytes of documents.
 */

/** Reflected ECMA polynomial, `crc64.ECMA` in Go. */
const polyHi = 0xc96c5795
const polyLo = 0xd7870f42

const tableHi = new Uint32Array(256)
const tableLo = new Uint32Array(256)
for (let i = 0; i < 256; i++) {
  let hi = 0
  let lo = i
  for (let bit = 0; bit < 8; bit++) {
    const carry = lo & 1
    lo = ((lo >>> 1) | ((hi & 1) << 31)) >>> 0
    hi = hi >>> 1
    if (carry) {
      hi = (hi ^ polyHi) >>> 0
      lo = (lo ^ polyLo) >>> 0
    }
  }
  tableHi[i] = hi
  tableLo[i] = lo
}

/** A running CRC-64/ECMA. */
export class Crc64 {
  private hi = 0xffffffff
  private lo = 0xffffffff

  update(bytes: Uint8Array): this {
    let hi = this.hi
    let lo = this.lo
    for (let i = 0; i < bytes.length; i++) {
      const index = (lo ^ bytes[i]!) & 0xff
      lo = ((lo >>> 8) | (hi << 24)) ^ tableLo[index]!
      hi = (hi >>> 8) ^ tableHi[index]!
    }
    this.hi = hi >>> 0
    this.lo = lo >>> 0
    return this
  }

  /** The checksum as Go's `Sum64()` (unsigned). */
  digest(): bigint {
    return (BigInt((this.hi ^ 0xffffffff) >>> 0) << 32n) | BigInt((this.lo ^ 0xffffffff) >>> 0)
  }

  /** As mongodump stores it: `int64(crc.Sum64())`, two's complement. */
  digestInt64(): bigint {
    return BigInt.asIntN(64, this.digest())
  }
}

/** One-shot helper. */
export function crc64(bytes: Uint8Array): bigint {
  return new Crc64().update(bytes).digest()
}
