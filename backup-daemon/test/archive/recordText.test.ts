/**
 * The snapshot record's file items as the tar writer builds them (`tar/recordText.ts`,
 * `TarWriter.takeRecordedText`): the same JSON text `JSON.stringify` gave for each `[path, size, digest]`
 * (so the record's format is unchanged), paths that JSON must escape included, and read back by `parseRecord`.
 */
import { expect } from 'chai'
import { randomBytes } from 'node:crypto'
import { crc32 as zlibCrc32 } from 'node:zlib'
import { crc32, crc32Hex } from '../../src/tar/fileDigest.js'
import { jsonString, recordItem } from '../../src/tar/recordText.js'
import { parseRecord, type RecordedFile } from '../../src/tar/snapshotRecord.js'
import { TarWriter } from '../../src/tar/tarWriter.js'

/** Paths JSON escapes (quote, backslash, control characters, lone surrogates) and ones it leaves as they are. */
const paths = [
  'plain/path.txt',
  'quote"d',
  'back\\slash',
  'new\nline',
  'tab\tand\u0000nul\u001f',
  'ñandú/日本語 ファイル.txt',
  'emoji 😀 pair',
  'lone \ud800 high',
  'lone \udfff low',
  '\u007f del and \u2028 separator',
  '',
]
const mtime = new Date('2024-01-02T03:04:05Z')

describe('tar/recordText: the record items the tar writer builds', () => {
  it('a path is the JSON string JSON.stringify gives, whatever it holds', () => {
    for (const path of paths) expect(jsonString(path), JSON.stringify(path)).to.equal(JSON.stringify(path))
    expect(recordItem('a"b', 12, '0badf00d')).to.equal(JSON.stringify(['a"b', 12, '0badf00d']))
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

  for (const digest of ['crc32', 'sha256'] as const) {
    it(`the writer's text (${digest}) is the items JSON.stringify gave, and a record of it round-trips through parseRecord`, () => {
      const tar = new TarWriter(undefined, digest)
      const bodies = paths.map((_, i) => randomBytes(i * 97))
      let text = ''
      const take = () => {
        const piece = tar.takeRecordedText()
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
      expect(tar.takeRecordedText()).to.equal('')
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
