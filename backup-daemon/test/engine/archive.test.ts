import { expect } from 'chai'
import { execFileSync } from 'node:child_process'
import { createWriteStream } from 'node:fs'
import { readFile, readlink, stat, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createArchive } from '../../src/archive/createArchive.js'
import { LocalSource } from '../../src/sources/local/index.js'
import type { Source, SourceEntry } from '../../src/sources/types.js'
import { makeTree, tempDir } from './helpers.js'

const context = { log: () => {} }

describe('archive/createArchive', () => {
  let tmp: Awaited<ReturnType<typeof tempDir>>
  beforeEach(async () => {
    tmp = await tempDir()
    await makeTree(join(tmp.dir, 'src'))
  })
  afterEach(() => tmp.remove())

  for (const compression of ['tar.gz', 'tar'] as const) {
    it(`round-trips a tree through ${compression} and tar -x, excludes applied, links not followed`, async () => {
      const source = new LocalSource('files', join(tmp.dir, 'src'), ['**/*.tmp', 'cache'], context)
      const file = join(tmp.dir, `out.${compression}`)
      await pipeline(createArchive([source], { compression, signal: new AbortController().signal }), createWriteStream(file))
      const out = join(tmp.dir, 'extracted')
      execFileSync('mkdir', ['-p', out])
      execFileSync('tar', [compression === 'tar.gz' ? '-xzf' : '-xf', file, '-C', out])
      for (const path of ['readme.txt', 'docs/random.bin', 'docs/deep/er/empty']) {
        expect(await readFile(join(out, 'files', path)), path).to.deep.equal(await readFile(join(tmp.dir, 'src', path)))
      }
      expect(await readlink(join(out, 'files/docs/outside'))).to.equal('/etc/hostname')
      expect(await readdir(join(out, 'files'))).to.have.members(['readme.txt', 'docs'])
      expect(await readdir(join(out, 'files/docs'))).to.not.include('notes.tmp')
      expect((await stat(join(out, 'files/docs/random.bin'))).size).to.equal(300_000)
    })
  }

  it('spools entries of unknown size (database dumps) and aborts cleanly', async () => {
    const dump: Source = {
      type: 'test',
      name: 'db',
      async *batches(): AsyncIterable<SourceEntry[]> {
        yield [{ name: 'db/dump.bin', type: 'file', mode: 0o644, mtime: new Date(), open: () => Readable.from([Buffer.from('abc'), Buffer.from('def')]) }]
      },
    }
    const file = join(tmp.dir, 'db.tar')
    await pipeline(createArchive([dump], { compression: 'tar', signal: new AbortController().signal }), createWriteStream(file))
    expect(execFileSync('tar', ['-xOf', file, 'db/dump.bin']).toString()).to.equal('abcdef')

    const controller = new AbortController()
    const endless: Source = {
      type: 'test',
      name: 'endless',
      async *batches(): AsyncIterable<SourceEntry[]> {
        for (let i = 0; ; i++)
          yield [{ name: `endless/${i}`, type: 'file', mode: 0o644, mtime: new Date(), size: 4096, open: () => Readable.from([Buffer.alloc(4096)]) }]
      },
    }
    const archive = createArchive([endless], { compression: 'tar.gz', signal: controller.signal })
    let received = 0
    const failure = (async () => {
      for await (const chunk of archive) {
        received += (chunk as Buffer).length
        if (received > 10_000) controller.abort(new Error('stop here'))
      }
    })().catch((e: unknown) => e)
    expect(await failure).to.be.instanceOf(Error)
  })
})
