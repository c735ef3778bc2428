/**
 * The snapshot record's file items as the tar writer builds them (`tar/recordText.ts`,
 * `TarWriter.takeRecorded`): the same JSON text `JSON.stringify` gave for each `[path, size, digest]`, as
 * UTF-8 (so the record's format is unchanged), paths that JSON must escape included, and read back by `parseRecord`.
 */
import { expect } from 'chai'
import { randomBytes } from 'node:crypto'
import { crc32 as zlibCrc32 } from 'node:zlib'
import { crc32, crc32Hex } from '../../src/tar/fileDigest.js'
import { RecordText } from '../../src/tar/recordText.js'
import { parseRecord, type RecordedFile } from '../../src/tar/snapshotRecord.js'
import { TarWriter } from '../../src/tar/tarWriter.js'

/** Paths JSON escapes (quote, backslash, control characters, lone surrogates) and ones it leaves as they are. */
const paths = [
  'plain/path.txt',
  'quote"d',
  'back\\slash',
  'new\nline',
  'tab\tand\u0001soh\u001f',
  'ñandú/日本語 ファイル.txt',
  'emoji 😀 pair',
  'lone \ud800 high',
  'lone \udfff low',
  '\u007f del and \u2028 separator',
  '',
]
const mtime = new Date('2024-01-02T03:04:05Z')

describe('tar/recordText: the record items the tar writer builds', () => {
  it('an item is the JSON text JSON.stringify gives, whatever the path holds and however large the size', () => {
    const items = new RecordText('crc32')
    const sizes = [0, 7, 10, 512, 1_000_000, 2 ** 33 + 5, Number.MAX_SAFE_INTEGER]
    for (const size of sizes) for (const path of paths) items.start(path, size)
    items.end()
    const expected = sizes.flatMap((size) => paths.map((path) => JSON.stringify([path, size, '00000000'])))
    expect(Buffer.from(items.take()).toString('utf8')).to.equal(expected.join(','))
    expect(items.take().byteLength).to.equal(0)
  })

  it('a long path grows the memory the items are written to, and each take is memory of its own', () => {
    const items = new RecordText('md5')
    const long = 'd/'.repeat(20_000) + 'ü'.repeat(10_000)
    items.start(long, 3)
    items.update(Buffer.from('abc'))
    items.start('next', 0)
    items.end()
    const taken = items.take()
    expect(taken.byteOffset).to.equal(0)
    expect(taken.buffer.byteLength).to.equal(taken.byteLength)
    expect(Buffer.from(taken).toString('utf8')).to.equal(
      `${JSON.stringify([long, 3, '900150983cd24fb0d6963f7d28e17f72'])},${JSON.stringify(['next', 0, 'd41d8cd98f00b204e9800998ecf8427e'])}`,
    )
  })

  it('a crc32 in hex is 8 lower-case digits, zero-padded', () => {
    for (const value of [0, 1, 0xf, 0xabc, 0x0badf00d, 0x7fffffff, 0x80000000, 0xffffffff])
      expect(crc32Hex(value)).to.equal(value.toString(16).padStart(8, '0'))
  })

  it("the crc32 of a few bytes (JavaScript) and of many (zlib's) is zlib's, whole and continued", () => {
    for (const size of [0, 1, 7, 8, 9, 100, 255, 256, 257, 5000]) {
      const bytes = randomBytes(size)
      expect(crc32(bytes, 0), `${size} bytes`).to.equal(zlibCrc32(bytes))
      const cut = size >> 1
      expect(crc32(bytes.subarray(cut), crc32(bytes.subarray(0, cut), 0)), `${size} bytes in two`).to.equal(zlibCrc32(bytes))
    }
  })

  for (const digest of ['crc32', 'md5', 'sha256'] as const) {
    it(`the writer's bytes (${digest}) are the items JSON.stringify gave, and a record of it round-trips through parseRecord`, () => {
      const tar = new TarWriter(undefined, digest)
      const bodies = paths.map((_, i) => randomBytes(i * 97))
      let text = ''
      const take = () => {
        const piece = Buffer.from(tar.takeRecorded()).toString('utf8')
        if (piece) text += (text ? ',' : '') + piece
      }
      paths.forEach((path, i) => {
        // Some steps hand over several files, some one, some none (a folder).
        tar.entry({ name: `${path}/`, type: 'directory', mode: 0o755, mtime })
        tar.entry({ name: path || 'unnamed', type: 'file', mode: 0o644, mtime }, bodies[i])
        if (i % 3 === 0) take()
      })
      tar.end()
      take()
      expect(tar.takeRecorded().byteLength).to.equal(0)
      const files = JSON.parse(`[${text}]`) as RecordedFile[]
      expect(files.map(([path]) => path)).to.deep.equal(paths.map((path) => path || 'unnamed'))
      expect(files.map(([, size]) => size)).to.deep.equal(bodies.map((body) => body.length))
      expect(text).to.equal(files.map((file) => JSON.stringify(file)).join(','))
      if (digest === 'crc32') expect(files.map(([, , hex]) => hex)).to.deep.equal(bodies.map((body) => crc32Hex(zlibCrc32(body))))
      const record = parseRecord(Buffer.from(`{"version":1,"digest":"${digest}","files":[${text}],"sources":{}}`))
      expect(record.files).to.deep.equal(files)
    })
  }
})
