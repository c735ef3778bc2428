import { expect } from 'chai'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { writeSnapshot } from '../../src/archive/writeSnapshot.js'
import { LocalStorage } from '../../src/storages/local.js'
import type { Storage } from '../../src/storages/types.js'
import { tempDir } from './helpers.js'

/** 8 MiB in 64 KiB chunks: more than the pipes hold, so the writer must wait for every storage. */
const archive = () => Readable.from((function* () {
  for (let i = 0; i < 128; i++) yield Buffer.alloc(64 * 1024, i)
})())

describe('archive/writeSnapshot', () => {
  let tmp: Awaited<ReturnType<typeof tempDir>>
  beforeEach(async () => (tmp = await tempDir()))
  afterEach(() => tmp.remove())

  it('fails (instead of waiting forever) when one storage refuses the write, and cleans the others', async () => {
    const good = new LocalStorage('good', join(tmp.dir, 'good'))
    const broken: Storage = { ...good, name: 'broken', type: 'broken', canStream: true, write: async () => Promise.reject(new Error('disk full')), list: good.list.bind(good), open: good.open.bind(good), delete: good.delete.bind(good), isNotExist: good.isNotExist.bind(good) }
    const options = { archive: archive(), storages: [good, broken], job: 'j', name: 'j-x.tar', compression: 'tar' as const, createdAt: new Date(), chunkSize: 1 << 20, signal: new AbortController().signal }
    const err = await writeSnapshot(options).catch((e: unknown) => e)
    expect((err as Error).message).to.equal('disk full')
    const files = (await readdir(join(tmp.dir, 'good'), { recursive: true, withFileTypes: true }).catch(() => [])).filter((e) => e.isFile())
    expect(files).to.deep.equal([])
  })

  it('writes the same bytes to every storage with per-part hashes', async () => {
    const a = new LocalStorage('a', join(tmp.dir, 'a'))
    const b = new LocalStorage('b', join(tmp.dir, 'b'))
    const manifest = await writeSnapshot({ archive: archive(), storages: [a, b], job: 'j', name: 'j-x.tar', compression: 'tar', createdAt: new Date(), chunkSize: 3 << 20, signal: new AbortController().signal })
    expect(manifest.parts.map((p) => p.size)).to.deep.equal([3 << 20, 3 << 20, 2 << 20])
    expect((await a.list('j/')).map((o) => o.key).sort()).to.deep.equal((await b.list('j/')).map((o) => o.key).sort())
  })
})
