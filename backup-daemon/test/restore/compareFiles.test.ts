/**
 * A drill's comparison of restored files with the record (`restore/drill/compareFiles.ts`), read as it
 * comes (issue 42): a tree that matches is gone through once; every way a restore can differ is named
 * (missing, other size, other digest, extra), also when a record names a file twice to hide an extra
 * (the counts then add up); a recorded path through a link, or a link where a file is recorded, counts
 * as missing: nothing outside the scratch folder is read.
 */
import { expect } from 'chai'
import { mkdir, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { crc32 } from 'node:zlib'
import { compareFiles, type ExpectedFile } from '../../src/restore/drill/compareFiles.js'
import { tempDir } from '../engine/helpers.js'

const crc = (text: string) => (crc32(Buffer.from(text)) >>> 0).toString(16).padStart(8, '0')
const expect1 = (name: string, text: string): ExpectedFile => ({ name, size: Buffer.byteLength(text), digest: { kind: 'crc32', value: crc(text) } })

describe('restore/drill/compareFiles: the restored files against the record', () => {
  let tmp: { dir: string; remove(): Promise<void> }
  let restored: string
  const signal = new AbortController().signal
  beforeEach(async () => {
    tmp = await tempDir('bd-compare-files-')
    restored = join(tmp.dir, 'files')
    await mkdir(join(restored, 'site', 'a'), { recursive: true })
    await writeFile(join(restored, 'site', 'one.txt'), 'one')
    await writeFile(join(restored, 'site', 'a', 'two.txt'), 'two')
  })
  afterEach(() => tmp.remove())

  /** compareFiles with `files` as its expected list, counting how often it is read. */
  const compare = async (files: ExpectedFile[]) => {
    let reads = 0
    const result = await compareFiles(
      restored,
      function* () {
        reads++
        yield* files
      },
      { signal },
    )
    return { ...result, reads }
  }

  it('a matching tree: every file compared, no difference, the record read once', async () => {
    const result = await compare([expect1('site/one.txt', 'one'), expect1('site/a/two.txt', 'two')])
    expect(result).to.deep.include({ compared: 2, bytes: 6, differences: [], reads: 1 })
  })

  it('names a file missing, one of another size, one of another digest, and an extra one', async () => {
    await writeFile(join(restored, 'site', 'extra.txt'), 'not recorded')
    const result = await compare([expect1('site/one.txt', 'ONE'), expect1('site/a/two.txt', 'three'), expect1('site/gone.txt', 'gone')])
    expect(result.differences).to.deep.equal([
      `site/one.txt: crc32 ${crc('one')} restored, the backup recorded ${crc('ONE')}`,
      'site/a/two.txt: 3 bytes restored, the backup recorded 5',
      'site/gone.txt: missing from the restore (recorded 4 bytes)',
      'site/extra.txt: restored but not in the record',
    ])
  })

  it('a file recorded twice does not hide an extra one (the counts add up)', async () => {
    await writeFile(join(restored, 'site', 'hidden.txt'), 'unrecorded')
    const result = await compare([expect1('site/one.txt', 'one'), expect1('site/one.txt', 'one'), expect1('site/a/two.txt', 'two')])
    expect(result.differences).to.deep.equal(['site/one.txt: recorded twice (compared once)', 'site/hidden.txt: restored but not in the record'])
    expect(result.compared).to.equal(2)
  })

  it('never reads through a link: a path through a linked folder, and a link where a file is recorded, are missing', async () => {
    const outside = join(tmp.dir, 'outside')
    await mkdir(outside)
    await writeFile(join(outside, 'secret'), 'secret')
    await symlink(outside, join(restored, 'site', 'lnk'))
    await symlink(join(outside, 'secret'), join(restored, 'site', 'file-link'))
    const result = await compare([
      expect1('site/one.txt', 'one'),
      expect1('site/a/two.txt', 'two'),
      expect1('site/lnk/secret', 'secret'),
      expect1('site/file-link', 'secret'),
    ])
    expect(result.differences).to.deep.equal([
      'site/lnk/secret: missing from the restore (recorded 6 bytes)',
      'site/file-link: missing from the restore (recorded 6 bytes)',
    ])
    expect(result.bytes).to.equal(6)
  })
})
