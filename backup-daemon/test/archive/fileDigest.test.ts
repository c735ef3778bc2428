import { expect } from 'chai'
import { createHash, randomBytes } from 'node:crypto'
import * as zlib from 'node:zlib'
import { crc32Fallback, newDigest } from '../../src/tar/fileDigest.js'

describe('tar/fileDigest: the record digest of a file fed piece by piece', () => {
  const bytes = randomBytes(300_000)
  const pieces = [bytes.subarray(0, 1), bytes.subarray(1, 4097), bytes.subarray(4097, 4097), bytes.subarray(4097)]

  it('crc32 is zlib.crc32 of the whole, in pieces, as 8 lower-case hex digits (zero-padded)', () => {
    expect(typeof zlib.crc32, 'zlib.crc32 on this Node (20.15+, 22.2+)').to.equal('function')
    const digest = newDigest('crc32')
    for (const piece of pieces) digest.update(piece)
    expect(digest.hex()).to.equal(zlib.crc32(bytes).toString(16).padStart(8, '0'))
    expect(newDigest('crc32').hex()).to.equal('00000000')
  })

  it("the JavaScript fallback (a Node without zlib.crc32) gives zlib's value, whole and continued piece by piece", () => {
    expect(crc32Fallback(bytes)).to.equal(zlib.crc32(bytes))
    let value = 0
    for (const piece of pieces) value = crc32Fallback(piece, value)
    expect(value).to.equal(zlib.crc32(bytes))
    expect(crc32Fallback(Buffer.from('123456789'))).to.equal(0xcbf43926)
  })

  it('md5 and sha256 are the hashes of the whole', () => {
    for (const kind of ['md5', 'sha256'] as const) {
      const digest = newDigest(kind)
      for (const piece of pieces) digest.update(piece)
      expect(digest.hex()).to.equal(createHash(kind).update(bytes).digest('hex'))
    }
  })
})
