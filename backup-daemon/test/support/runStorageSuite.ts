/**
 * @module test/support/runStorageSuite
 * The contract tests every storage backend passes (restic's backend suite, Hono's router cases):
 * a backend's test file calls `runStorageSuite({ newStorage })` inside a `describe`. A backend may skip
 * named tests with a reason (`skip: [{ reason, tests }]`), printed in the test's title; a skip is only
 * for a server that cannot run on this machine, never for one that merely is not started.
 */
import { expect } from 'chai'
import { Readable } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import type { Storage } from '../../src/storages/types.js'

/** The suite's test titles, so a skip names tests that exist. */
export const storageSuiteTests = [
  'shows a written object as incomplete until it is committed, then under its key',
  'commits into nested folders and lists recursively under a prefix only',
  'discards an uncommitted object',
  'stops an aborted write and leaves nothing behind',
  'streams large bodies with backpressure and counts every byte',
  'says isNotExist for a missing object and deletes idempotently',
  'classifies its own errors: a missing object or a bad key is not retryable',
  'refuses keys that would leave its root',
] as const

export type StorageSuiteTest = (typeof storageSuiteTests)[number]

export interface StorageSuiteSkip {
  /** Why, printed with every skipped test (e.g. "no MongoDB server can run on this machine"). */
  reason: string
  tests: readonly StorageSuiteTest[]
}

export interface StorageSuiteOptions {
  /** A fresh, empty storage for each test. */
  newStorage(): Promise<Storage>
  /** Removes what `newStorage` created. */
  cleanup?(storage: Storage): Promise<void>
  /** Tests that cannot run here, each with its reason. */
  skip?: StorageSuiteSkip[]
}

const bytes = (text: string) => Readable.from([Buffer.from(text)])
const never = () => new AbortController().signal
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: unknown) => e ?? new Error('rejected without a reason'),
  )

export function runStorageSuite({ newStorage, cleanup, skip = [] }: StorageSuiteOptions): void {
  let storage: Storage | undefined
  beforeEach(async () => {
    storage = await newStorage()
  })
  afterEach(async () => {
    if (storage && cleanup) await cleanup(storage)
    storage = undefined
  })
  const s = (): Storage => storage!

  const test = (title: StorageSuiteTest, fn: () => Promise<void>) => {
    const skipped = skip.find((entry) => entry.tests.includes(title))
    if (skipped) it.skip(`${title} (skipped: ${skipped.reason})`, fn)
    else it(title, fn)
  }

  test('shows a written object as incomplete until it is committed, then under its key', async () => {
    const pending = await s().write('job', bytes('hello'), never())
    expect(pending.size).to.equal(5)
    const before = await s().list('job/')
    expect(before).to.have.length(1)
    expect(before[0]!.incomplete).to.equal(true)
    await pending.commit('job/a.tar')
    const after = await s().list('job/')
    expect(after.map((o) => [o.key, o.size, o.incomplete])).to.deep.equal([['job/a.tar', 5, false]])
    expect((await buffer(await s().open('job/a.tar'))).toString()).to.equal('hello')
  })

  test('commits into nested folders and lists recursively under a prefix only', async () => {
    await (await s().write('job', bytes('1'), never())).commit('job/set.parts-2-2/set.part-aaa')
    await (await s().write('job', bytes('2'), never())).commit('job/set.parts-2-2/set.part-aab')
    await (await s().write('other', bytes('3'), never())).commit('other/x')
    const keys = (await s().list('job/')).map((o) => o.key).sort()
    expect(keys).to.deep.equal(['job/set.parts-2-2/set.part-aaa', 'job/set.parts-2-2/set.part-aab'])
    expect(await s().list('missing/')).to.deep.equal([])
  })

  test('discards an uncommitted object', async () => {
    const pending = await s().write('job', bytes('x'), never())
    await pending.discard()
    expect(await s().list('job/')).to.deep.equal([])
  })

  test('stops an aborted write and leaves nothing behind', async () => {
    const controller = new AbortController()
    async function* endless() {
      for (let i = 0; ; i++) {
        if (i === 8) controller.abort(new Error('stop'))
        yield Buffer.alloc(64 * 1024, i)
        await new Promise((r) => setImmediate(r))
      }
    }
    const err = await failure(s().write('job', Readable.from(endless()), controller.signal))
    expect(err).to.be.instanceOf(Error)
    expect(await s().list('job/')).to.deep.equal([])
  })

  test('streams large bodies with backpressure and counts every byte', async () => {
    const chunk = Buffer.alloc(1 << 20, 7)
    async function* body() {
      for (let i = 0; i < 32; i++) yield chunk
    }
    const pending = await s().write('job', Readable.from(body()), never())
    expect(pending.size).to.equal(32 << 20)
    await pending.commit('job/big')
    expect((await s().list('job/'))[0]!.size).to.equal(32 << 20)
    const back = await buffer(await s().open('job/big'))
    expect(back.length).to.equal(32 << 20)
    expect(back.equals(Buffer.concat(Array.from({ length: 32 }, () => chunk)))).to.equal(true)
  })

  test('says isNotExist for a missing object and deletes idempotently', async () => {
    const err = await failure(s().open('job/nope'))
    expect(s().isNotExist(err)).to.equal(true)
    expect(s().isNotExist(new Error('other'))).to.equal(false)
    await (await s().write('job', bytes('x'), never())).commit('job/x')
    await s().delete('job/x')
    await s().delete('job/x')
    expect(await s().list('job/')).to.deep.equal([])
  })

  test('classifies its own errors: a missing object or a bad key is not retryable', async () => {
    expect(s().isRetryable(await failure(s().open('job/nope')))).to.equal(false)
    expect(s().isRetryable(await failure(s().open('../x')))).to.equal(false)
    expect(s().isRetryable(new Error('other'))).to.equal(false)
    expect(s().isRetryable(undefined)).to.equal(false)
  })

  test('refuses keys that would leave its root', async () => {
    const pending = await s().write('job', bytes('x'), never())
    for (const key of ['../escape', 'job/../../escape', '/etc/passwd']) {
      expect(await failure(pending.commit(key)), key).to.be.instanceOf(Error)
    }
    for (const key of ['../x', '/etc/hostname']) {
      expect(await failure(s().open(key)), key).to.be.instanceOf(Error)
    }
    await pending.discard()
  })
}
