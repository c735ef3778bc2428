/**
 * Restore never creates anything outside `--to`: crafted tar archives whose earlier entries plant a link
 * (`lnk -> /outside`, `up -> ..`) and whose later entries go through it. Each is refused before any
 * folder is made; the outside folder and the target's parent stay exactly as they were.
 */
import { expect } from 'chai'
import { mkdir, readdir, readFile, readlink } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import tar from 'tar-stream'
import { extractTo } from '../../src/restore/extractTo.js'
import { tempDir } from '../engine/helpers.js'

type Entry = { name: string; type?: 'file' | 'directory' | 'symlink'; linkname?: string; body?: string }

function tarOf(entries: Entry[]): Readable {
  const pack = tar.pack()
  for (const e of entries) {
    if (e.type === 'symlink') pack.entry({ name: e.name, type: 'symlink', linkname: e.linkname! })
    else if (e.type === 'directory') pack.entry({ name: e.name, type: 'directory', mode: 0o755 })
    else pack.entry({ name: e.name, mode: 0o644 }, e.body ?? 'x')
  }
  pack.finalize()
  return Readable.from(pack as unknown as AsyncIterable<Buffer>)
}

describe('security: restore creates nothing outside --to', () => {
  let tmp: Awaited<ReturnType<typeof tempDir>>
  let to: string
  let outside: string
  beforeEach(async () => {
    tmp = await tempDir('sec-extract-')
    to = join(tmp.dir, 'restore-here')
    outside = join(tmp.dir, 'outside')
    await mkdir(outside)
  })
  afterEach(() => tmp.remove())

  const cases: [string, () => Entry[]][] = [
    [
      'lnk -> /outside, then lnk/created_by_restore/deep/x',
      () => [
        { name: 'lnk', type: 'symlink', linkname: outside },
        { name: 'lnk/created_by_restore/deep/x', body: 'evil' },
      ],
    ],
    [
      'lnk -> /outside, then the folder lnk/created_by_restore/',
      () => [
        { name: 'lnk', type: 'symlink', linkname: outside },
        { name: 'lnk/created_by_restore/', type: 'directory' },
      ],
    ],
    [
      'lnk -> /outside, then the link lnk/planted -> /etc',
      () => [
        { name: 'lnk', type: 'symlink', linkname: outside },
        { name: 'lnk/planted', type: 'symlink', linkname: '/etc' },
      ],
    ],
    [
      'up -> .., then up/beside/x',
      () => [
        { name: 'up', type: 'symlink', linkname: '..' },
        { name: 'up/beside/x', body: 'evil' },
      ],
    ],
    [
      'a/up -> ../.., then a/up/beside/',
      () => [
        { name: 'a/', type: 'directory' },
        { name: 'a/up', type: 'symlink', linkname: '../..' },
        { name: 'a/up/beside/', type: 'directory' },
      ],
    ],
  ]
  for (const [what, entries] of cases) {
    it(`refuses ${what} and creates nothing outside`, async () => {
      const err = await extractTo(tarOf(entries()), to).then(
        () => undefined,
        (e: Error) => e,
      )
      expect(await readdir(outside)).to.deep.equal([])
      expect((await readdir(tmp.dir)).sort()).to.deep.equal(['outside', 'restore-here'])
      expect(err?.message).to.match(/^refusing archive entry ".+": its path goes through ".+", a symbolic link$/)
    })
  }

  it('still restores an ordinary tree with folders, files and links', async () => {
    const result = await extractTo(
      tarOf([
        { name: 'files/', type: 'directory' },
        { name: 'files/docs/', type: 'directory' },
        { name: 'files/docs/readme.txt', body: 'hello' },
        { name: 'files/docs/outside', type: 'symlink', linkname: '/etc/hostname' },
        { name: 'files/new/deep/file.txt', body: 'deep' },
      ]),
      to,
    )
    expect(result).to.include({ files: 2, links: 1, directories: 2 })
    expect(await readFile(join(to, 'files/docs/readme.txt'), 'utf8')).to.equal('hello')
    expect(await readFile(join(to, 'files/new/deep/file.txt'), 'utf8')).to.equal('deep')
    expect(await readlink(join(to, 'files/docs/outside'))).to.equal('/etc/hostname')
  })
})
