/**
 * @module test/archive/forEachTarEntry
 * The tar walk under failure: an archive that fails in the middle of an entry (a cancelled restore's
 * storage read) rejects the walk with that error, and never as an uncaught 'error' event of the entry
 * stream while the handler has no listener on it (that crashed a daemon once).
 */
import { expect } from 'chai'
import { PassThrough } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import tar from 'tar-stream'
import { forEachTarEntry } from '../../src/archive/forEachTarEntry.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('archive/forEachTarEntry', function () {
  it('an archive failing mid-entry rejects the walk with its error, not as an uncaught entry error', async function () {
    const pack = tar.pack()
    pack.entry({ name: 'big.bin', size: 1 << 20 }, Buffer.alloc(1 << 20, 1))
    pack.finalize()
    const bytes = await buffer(pack)
    const archive = new PassThrough()
    archive.write(bytes.subarray(0, 512 + (64 << 10)))
    let uncaught: Error | undefined
    const onUncaught = (err: Error) => (uncaught = err)
    process.prependOnceListener('uncaughtException', onUncaught)
    try {
      const walk = forEachTarEntry(archive, async (_header, entry) => {
        // The handler is busy (no listener on the entry yet) when the archive fails.
        await sleep(60)
        for await (const _chunk of entry);
      })
      setTimeout(() => archive.destroy(new Error('cancelled')), 20)
      const err = await walk.then(
        () => undefined,
        (e: Error) => e,
      )
      await sleep(20)
      expect(err?.message).to.equal('cancelled')
      expect(uncaught, uncaught?.stack).to.equal(undefined)
    } finally {
      process.removeListener('uncaughtException', onUncaught)
    }
  })
})
