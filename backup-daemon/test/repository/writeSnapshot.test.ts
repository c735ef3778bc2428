import { expect } from 'chai'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { writeSnapshot } from '../../src/repository/archives/writeSnapshot.js'
import { listCatalog } from '../../src/repository/archives/catalog.js'
import { LocalStorage } from '../../src/storages/local.js'
import type { Storage } from '../../src/storages/types.js'
import { tempDir } from '../engine/helpers.js'

/** 8 MiB in 64 KiB chunks: more than the pipes hold, so the writer must wait for every storage. */
const archive = () =>
  Readable.from(
    (function* () {
      for (let i = 0; i < 128; i++) yield Buffer.alloc(64 * 1024, i)
    })(),
  )

describe('repository/archives/writeSnapshot', () => {
  let tmp: Awaited<ReturnType<typeof tempDir>>
  beforeEach(async () => (tmp = await tempDir()))
  afterEach(() => tmp.remove())

  it('fails (instead of waiting forever) when one storage refuses the write, and cleans the others', async () => {
    const good = new LocalStorage('good', join(tmp.dir, 'good'))
    const broken: Storage = {
      ...good,
      name: 'broken',
      type: 'broken',
      canStream: true,
      write: async () => Promise.reject(new Error('disk full')),
      list: good.list.bind(good),
      open: good.open.bind(good),
      delete: good.delete.bind(good),
      isNotExist: good.isNotExist.bind(good),
      isRetryable: () => false,
    }
    const options = {
      archive: archive(),
      storages: [good, broken],
      job: 'j',
      name: 'j-x.tar',
      compression: 'tar' as const,
      createdAt: new Date(),
      chunkSize: 1 << 20,
      signal: new AbortController().signal,
    }
    const err = await writeSnapshot(options).catch((e: unknown) => e)
    expect((err as Error).message).to.equal('storage "broken" (broken) failed: disk full')
    const files = (await readdir(join(tmp.dir, 'good'), { recursive: true, withFileTypes: true }).catch(() => [])).filter((e) => e.isFile())
    expect(files).to.deep.equal([])
  })

  it('writes the same bytes to every storage with per-part hashes', async () => {
    const a = new LocalStorage('a', join(tmp.dir, 'a'))
    const b = new LocalStorage('b', join(tmp.dir, 'b'))
    const manifest = await writeSnapshot({
      archive: archive(),
      storages: [a, b],
      job: 'j',
      name: 'j-x.tar',
      compression: 'tar',
      createdAt: new Date(),
      chunkSize: 3 << 20,
      signal: new AbortController().signal,
    })
    expect(manifest.parts.map((p) => p.size)).to.deep.equal([3 << 20, 3 << 20, 2 << 20])
    expect((await a.list('j/')).map((o) => o.key).sort()).to.deep.equal((await b.list('j/')).map((o) => o.key).sort())
  })

  it('a storage failing mid-upload fails the run naming it; the other storage keeps its older snapshots and gains nothing', async () => {
    const good = new LocalStorage('good', join(tmp.dir, 'good'))
    const flakyDisk = new LocalStorage('flaky', join(tmp.dir, 'flaky'))
    // Older snapshot on both, written while the flaky storage still worked.
    const older = await writeSnapshot({
      archive: archive(),
      storages: [good, flakyDisk],
      job: 'j',
      name: 'j-2026-01-01T00-00-00-000Z.tar',
      compression: 'tar',
      createdAt: new Date('2026-01-01T00:00:00Z'),
      chunkSize: 3 << 20,
      signal: new AbortController().signal,
    })
    // A test double of the Storage contract: reads 2 MiB of the stream into the real local storage, then the "connection" drops.
    const flaky: Storage = {
      type: 'flaky',
      name: 'flaky',
      canStream: true,
      list: (prefix) => flakyDisk.list(prefix),
      open: (key) => flakyDisk.open(key),
      delete: (key) => flakyDisk.delete(key),
      isNotExist: (err) => flakyDisk.isNotExist(err),
      isRetryable: () => false,
      async write(dir, body, signal) {
        let seen = 0
        const cut = new Readable({ read() {} })
        body.on('data', (chunk: Buffer) => {
          seen += chunk.length
          if (seen > 2 << 20) {
            body.pause()
            cut.destroy(new Error('connection reset by peer'))
          } else cut.push(chunk)
        })
        await flakyDisk.write(dir, cut, signal)
        throw new Error('unreachable: the stream was cut')
      },
    }
    const err = await writeSnapshot({
      archive: archive(),
      storages: [good, flaky],
      job: 'j',
      name: 'j-2026-02-01T00-00-00-000Z.tar',
      compression: 'tar',
      createdAt: new Date('2026-02-01T00:00:00Z'),
      chunkSize: 3 << 20,
      signal: new AbortController().signal,
    }).catch((e: unknown) => e as Error)
    expect(err).to.be.instanceOf(Error)
    expect((err as Error).message).to.match(/^storage "flaky" \(flaky\) failed: /)
    for (const storage of [good, flakyDisk]) {
      const { snapshots, orphans } = await listCatalog(storage, 'j')
      expect(
        snapshots.map((s) => s.view.name),
        storage.name,
      ).to.deep.equal([older.name])
      expect(snapshots[0]!.view.size).to.equal(older.size)
      expect(
        orphans.map((o) => o.key),
        `${storage.name}: nothing of the failed run left`,
      ).to.deep.equal([])
    }
  })
})
