/**
 * The record read without building it (`tar/recordReader.ts`, issue 42): on generated records (names with
 * every character JSON escapes, non-ASCII, any spacing between tokens, keys in any order) its files are
 * exactly `JSON.parse`'s, one at a time and as often as asked; broken or hostile records are refused with
 * the messages `parseRecord` always gave (not JSON, not a version 1 record, a path outside).
 */
import { expect } from 'chai'
import fc from 'fast-check'
import { readRecord } from '../../src/tar/recordReader.js'
import { recordEntryName, type RecordedFile } from '../../src/tar/snapshotRecord.js'

const name = fc
  .array(fc.oneof(fc.string({ minLength: 1, maxLength: 8 }), fc.constantFrom('"', '\\', '\n', '\u0001', '{', '}', '[', ']', ',', ':', 'é', '😀')), {
    minLength: 1,
    maxLength: 6,
  })
  .map((parts) => `files/${parts.join('').replace(/\//g, '_').replace(/\0/g, '0')}`)
  .filter((path) => !path.split('/').some((part) => part === '' || part === '.' || part === '..'))
const file = fc.tuple(
  name,
  fc.nat(),
  fc.integer({ min: 0, max: 0xffffffff }).map((n) => n.toString(16).padStart(8, '0')),
) as fc.Arbitrary<RecordedFile>
const space = fc.constantFrom('', ' ', '\n', '\t ', '\r\n  ')

/** The record as JSON with `gap` between every token, its keys in `order`. */
function text(files: RecordedFile[], gap: string, order: number[]): string {
  const members = [
    `"version"${gap}:${gap}1`,
    `"digest"${gap}:${gap}"crc32"`,
    `"files"${gap}:${gap}[${gap}${files.map(([n, size, d]) => `[${gap}${JSON.stringify(n)},${gap}${size}${gap},${JSON.stringify(d)}${gap}]`).join(`${gap},${gap}`)}${gap}]`,
    `"sources"${gap}:${gap}{${gap}"db"${gap}:${gap}{"type":"sqlite","recorded":{"tables":{"posts":[1,2]}}}${gap}}`,
  ]
  return `${gap}{${gap}${order.map((i) => members[i]).join(`${gap},${gap}`)}${gap}}${gap}`
}

describe('tar/recordReader: the record read one file at a time', () => {
  it('gives JSON.parse’s files and sources on generated records, again on every read', () => {
    fc.assert(
      fc.property(fc.array(file, { maxLength: 40 }), space, fc.shuffledSubarray([0, 1, 2, 3], { minLength: 4, maxLength: 4 }), (files, gap, order) => {
        const bytes = Buffer.from(text(files, gap, order))
        const view = readRecord(bytes, recordEntryName)
        const parsed = JSON.parse(bytes.toString()) as { files: RecordedFile[]; sources: unknown }
        expect(view.fileCount).to.equal(files.length)
        expect([...view.files()]).to.deep.equal(parsed.files)
        expect([...view.files()]).to.deep.equal(files)
        expect(view.sources).to.deep.equal(parsed.sources)
        expect(view.digest).to.equal('crc32')
      }),
      { numRuns: 300 },
    )
  })

  const refused: [string, string, RegExp][] = [
    ['cut short', '{"version":1,"digest":"crc32","files":[["files/a",1,"00000000"]', /is not JSON/],
    ['a trailing comma', '{"version":1,"digest":"crc32","files":[["files/a",1,"00000000"],],"sources":{}}', /is not JSON/],
    ['text after it', '{"version":1,"digest":"crc32","files":[],"sources":{}} x', /is not JSON/],
    ['an unknown version', '{"version":2,"digest":"crc32","files":[],"sources":{}}', /is not a version 1 record/],
    ['a file of the wrong shape', '{"version":1,"digest":"crc32","files":[["files/a","1","00000000"]],"sources":{}}', /is not a version 1 record/],
    ['no files', '{"version":1,"digest":"crc32","sources":{}}', /is not a version 1 record/],
    ['a path with ..', '{"version":1,"digest":"crc32","files":[["files/../../etc/shadow",1,"00000000"]],"sources":{}}', /record\.json\): file .*\.\./],
    ['an absolute path', '{"version":1,"digest":"crc32","files":[["/etc/shadow",1,"00000000"]],"sources":{}}', /record\.json\): file/],
  ]
  for (const [what, json, message] of refused) {
    it(`refuses a record with ${what}`, () => {
      expect(() => readRecord(Buffer.from(json), recordEntryName)).to.throw(message)
    })
  }
})
