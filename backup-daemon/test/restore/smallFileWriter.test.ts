/**
 * Small files restored on a worker thread (restore/smallFileWriter, issue 42): archives of more files than
 * one batch (512), so the worker writes them while the main thread reads on. Every byte, mode and mtime as
 * archived, whatever the umask; the order rules still hold (a folder or a link where a queued file is, a
 * file restored twice), with the messages a restore gave before; nothing is written after a failure.
 * Generated trees (fast-check) mix sizes across the small-file limit.
 */
import { expect } from 'chai'
import fc from 'fast-check'
import { lstat, readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import tar from 'tar-stream'
import { extractTo } from '../../src/restore/extractTo.js'
import { tempDir } from '../engine/helpers.js'

interface Entry {
  name: string
  type?: 'file' | 'directory' | 'symlink'
  body?: Buffer
  mode?: number
  mtime?: Date
  linkname?: string
}

function tarOf(entries: Entry[]): Readable {
  const pack = tar.pack()
  for (const e of entries) {
    const common = { name: e.name, mtime: e.mtime ?? new Date(1_600_000_000_000) }
    if (e.type === 'symlink') pack.entry({ ...common, type: 'symlink', linkname: e.linkname! })
    else if (e.type === 'directory') pack.entry({ ...common, type: 'directory', mode: e.mode ?? 0o755 })
    else pack.entry({ ...common, mode: e.mode ?? 0o644 }, e.body ?? Buffer.from('x'))
  }
  pack.finalize()
  return Readable.from(pack as unknown as AsyncIterable<Buffer>)
}

const files = (count: number, folder = 'd') =>
  Array.from({ length: count }, (_, i): Entry => ({ name: `${folder}${i % 3}/f${i}`, body: Buffer.from(`file ${i} `.repeat(i % 40)) }))

describe('restore: small files written on a worker thread', function () {
  this.timeout(60_000)
  let tmp: Awaited<ReturnType<typeof tempDir>>
  beforeEach(async () => (tmp = await tempDir('small-writer-')))
  afterEach(() => tmp.remove())

  it('restores 3,000 files (six batches) byte for byte with their modes and mtimes, under any umask', async () => {
    const modes = [0o600, 0o644, 0o755, 0o640, 0o1644, 0o4755]
    const entries = files(3000).map((e, i) => ({ ...e, mode: modes[i % modes.length]!, mtime: new Date(1_500_000_000_000 + i * 1000) }))
    const before = process.umask(0o077)
    try {
      const result = await extractTo(tarOf(entries), join(tmp.dir, 'out'))
      expect(result).to.include({ files: 3000, setIdCleared: 500 })
    } finally {
      process.umask(before)
    }
    for (const [i, entry] of entries.entries()) {
      const path = join(tmp.dir, 'out', entry.name)
      expect(await readFile(path), entry.name).to.deep.equal(entry.body)
      const stat = await lstat(path)
      expect(stat.mode & 0o7777, entry.name).to.equal(entry.mode & 0o1777)
      expect(stat.mtimeMs, entry.name).to.equal(1_500_000_000_000 + i * 1000)
    }
  })

  it('a file restored twice fails with the file system error, and nothing is written after the failure', async () => {
    const entries = [...files(1200), { name: 'd0/f3', body: Buffer.from('again') }, ...files(1200, 'late')]
    const failed = await extractTo(tarOf(entries), join(tmp.dir, 'out')).then(
      () => undefined,
      (err: NodeJS.ErrnoException) => err,
    )
    expect(failed?.code).to.equal('EEXIST')
    expect(failed?.message).to.include('file already exists')
    // The worker writes nothing after the failed file, though the main thread had queued on: the later
    // entries' folders were made, none of their files.
    const late = (await readdir(join(tmp.dir, 'out'), { recursive: true, withFileTypes: true })).filter((e) => e.parentPath.includes('/late'))
    expect(late.filter((e) => e.isFile())).to.have.length(0)
    expect(await readFile(join(tmp.dir, 'out/d0/f3'), 'utf8')).to.equal('file 3 file 3 file 3 ')
  })

  it('a folder or a link where a queued file is: refused as before, naming the entry', async () => {
    const folder = [...files(700), { name: 'd1/f4/inside', body: Buffer.from('no') }]
    const refused = await extractTo(tarOf(folder), join(tmp.dir, 'a')).catch((err: Error) => err)
    expect((refused as Error).message).to.match(/d1\/f4\/inside.*"d1\/f4" on its path is not a folder/)
    const link = [...files(700), { name: 'd2/f5', type: 'symlink' as const, linkname: '/etc' }]
    const clash = await extractTo(tarOf(link), join(tmp.dir, 'b')).catch((err: NodeJS.ErrnoException) => err)
    expect((clash as NodeJS.ErrnoException).code).to.equal('EEXIST')
    expect((await lstat(join(tmp.dir, 'b/d2/f5'))).isFile()).to.equal(true)
  })

  it('generated trees: sizes across the small-file limit, modes and names, restored exactly', async () => {
    const entry = fc.record({
      size: fc.oneof(fc.integer({ min: 0, max: 600 }), fc.constantFrom(256 * 1024, 256 * 1024 + 1, 300_000)),
      mode: fc.constantFrom(0o600, 0o644, 0o755, 0o444, 0o1755),
    })
    let run = 0
    await fc.assert(
      fc.asyncProperty(fc.array(entry, { minLength: 500, maxLength: 1400 }), async (list) => {
        const dir = join(tmp.dir, `gen-${++run}`)
        const entries = list.map(({ size, mode }, i): Entry => ({ name: `g${i % 7}/n\\${i}`, mode, body: Buffer.alloc(size, i % 251) }))
        await extractTo(tarOf(entries), dir)
        for (const e of entries) {
          expect(await readFile(join(dir, e.name)), e.name).to.deep.equal(e.body)
          expect((await lstat(join(dir, e.name))).mode & 0o7777, e.name).to.equal(e.mode)
        }
      }),
      { numRuns: 6 },
    )
  })
})
