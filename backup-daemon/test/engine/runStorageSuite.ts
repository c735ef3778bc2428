/**
 * @module test/engine/runStorageSuite
 * The contract tests every storage backend passes (restic's backend suite, Hono's router cases):
 * a backend's test file calls `runStorageSuite({ newStorage })` inside a `describe`. Backends that need
 * a service pass `skip` with the reason when it is not available.
 */
import { expect } from 'chai'
import { Readable } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import type { Storage } from '../../src/storages/types.js'

export interface StorageSuiteOptions {
  /** A fresh, empty storage for each test. */
  newStorage(): Promise<Storage>
  /** Removes what `newStorage` created. */
  cleanup?(storage: Storage): Promise<void>
  /** Why the suite cannot run here (e.g. "S3_ENDPOINT not set"); every test is skipped with it. */
  skip?: string
}

const bytes = (text: string) => Readable.from([Buffer.from(text)])
const never = () => new AbortController().signal

export function runStorageSuite({ newStorage, cleanup, skip }: StorageSuiteOptions): void {
  let storage: Storage
  beforeEach(async function () {
    if (skip) this.skip()
    storage = await newStorage()
  })
  afterEach(async () => {
    if (storage && cleanup) await cleanup(storage)
  })

  it('shows a written object as incomplete until it is committed, then under its key', async () => {
    const pending = await storage.write('job', bytes('hello'), never())
    expect(pending.size).to.equal(5)
    const before = await storage.list('job/')
    expect(before).to.have.length(1)
    expect(before[0]!.incomplete).to.equal(true)
    await pending.commit('job/a.tar')
    const after = await storage.list('job/')
    expect(after.map((o) => [o.key, o.size, o.incomplete])).to.deep.equal([['job/a.tar', 5, false]])
    expect((await buffer(await storage.open('job/a.tar'))).toString()).to.equal('hello')
  })

  it('commits into nested folders and lists recursively under a prefix only', async () => {
    await (await storage.write('job', bytes('1'), never())).commit('job/set.parts-2-2/set.part-aaa')
    await (await storage.write('job', bytes('2'), never())).commit('job/set.parts-2-2/set.part-aab')
    await (await storage.write('other', bytes('3'), never())).commit('other/x')
    const keys = (await storage.list('job/')).map((o) => o.key).sort()
    expect(keys).to.deep.equal(['job/set.parts-2-2/set.part-aaa', 'job/set.parts-2-2/set.part-aab'])
    expect(await storage.list('missing/')).to.deep.equal([])
  })

  it('discards an uncommitted object', async () => {
    const pending = await storage.write('job', bytes('x'), never())
    await pending.discard()
    expect(await storage.list('job/')).to.deep.equal([])
  })

  it('stops an aborted write and leaves nothing behind', async () => {
    const controller = new AbortController()
    async function* endless() {
      for (let i = 0; ; i++) {
        if (i === 8) controller.abort(new Error('stop'))
        yield Buffer.alloc(64 * 1024, i)
        await new Promise((r) => setImmediate(r))
      }
    }
    let failed = false
    await storage.write('job', Readable.from(endless()), controller.signal).catch(() => (failed = true))
    expect(failed).to.equal(true)
    expect(await storage.list('job/')).to.deep.equal([])
  })

  it('streams large bodies with backpressure and counts every byte', async () => {
    const chunk = Buffer.alloc(1 << 20, 7)
    async function* body() {
      for (let i = 0; i < 32; i++) yield chunk
    }
    const pending = await storage.write('job', Readable.from(body()), never())
    expect(pending.size).to.equal(32 << 20)
    await pending.commit('job/big')
    expect((await storage.list('job/'))[0]!.size).to.equal(32 << 20)
  })

  it('says isNotExist for a missing object and deletes idempotently', async () => {
    const err = await storage.open('job/nope').then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(storage.isNotExist(err)).to.equal(true)
    expect(storage.isNotExist(new Error('other'))).to.equal(false)
    await (await storage.write('job', bytes('x'), never())).commit('job/x')
    await storage.delete('job/x')
    await storage.delete('job/x')
    expect(await storage.list('job/')).to.deep.equal([])
  })

  it('refuses keys that would leave its root', async () => {
    const pending = await storage.write('job', bytes('x'), never())
    for (const key of ['../escape', 'job/../../escape', '/etc/passwd']) {
      const failed = await pending.commit(key).then(
        () => false,
        () => true,
      )
      expect(failed, key).to.equal(true)
    }
    for (const key of ['../x', '/etc/hostname']) {
      const failed = await storage.open(key).then(
        () => false,
        () => true,
      )
      expect(failed, key).to.equal(true)
    }
    await pending.discard()
  })
}
