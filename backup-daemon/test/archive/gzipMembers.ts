/**
 * @module test/archive/gzipMembers
 * Counts the members of a multi-member gzip file by inflating one after the other: shows that an
 * archive was compressed in independent blocks (and that each member is whole).
 */
import { inflateRawSync } from 'node:zlib'

export function gzipMembers(data: Buffer): number {
  let count = 0
  let offset = 0
  while (offset < data.length) {
    if (data.subarray(offset, offset + 3).toString('hex') !== '1f8b08') throw new Error(`no gzip member header at byte ${offset} (member ${count})`)
    // Node writes a 10-byte header (no name, no extra field); `info` tells how much deflate input one
    // body took; the 8-byte trailer (CRC32, size) follows.
    const { engine } = inflateRawSync(data.subarray(offset + 10), { info: true }) as unknown as { engine: { bytesWritten: number } }
    offset += 10 + engine.bytesWritten + 8
    count++
  }
  return count
}
