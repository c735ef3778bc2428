/**
 * @module test/archive/forEachTarEntry
 * The tar walk under failure: an archive that fails in the middle of an entry (a cancelled restore's
 * storage read) rejects the walk with that error, and never as an uncaught 'error' event of the entry
 * stream while the handler has no listener on it (that crashed a daemon once). A PAX path decides whether a
 * plain file's entry is a folder, not the header's own name field (restic's tars).
 */
import { expect } from 'chai'
import { PassThrough } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import tar from 'tar-stream'
import { forEachTarEntry } from '../../src/tar/forEachTarEntry.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A ustar header block as Go's archive/tar writes it (`type` its flag), its checksum filled in. */
function ustarHeader(name: string, type: string, size: number): Buffer {
  const block = Buffer.alloc(512)
  block.write(name, 0)
  block.write('0000644\0', 100)
  block.write(`${size.toString(8).padStart(11, '0')}\0`, 124)
  block.write('00000000000\0', 136)
  block.write(' '.repeat(8), 148)
  block.write(type, 156)
  block.write('ustar\x0000', 257, 'latin1')
  const sum = block.reduce((total, byte) => total + byte, 0)
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148)
  return block
}
/** `data` and its padding to the next block. */
const padded = (data: Buffer) => Buffer.concat([data, Buffer.alloc((512 - (data.length % 512)) % 512)])
/** One PAX record `<length> key=value\n`, its length counting itself. */
function paxRecord(key: string, value: string): Buffer {
  const rest = Buffer.from(` ${key}=${value}\n`)
  let length = rest.length + 1
  while (String(length).length + rest.length !== length) length++
  return Buffer.concat([Buffer.from(String(length)), rest])
}

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

  it("reads a file whose PAX path has no ASCII byte while its header's name field is the folder with a trailing slash (restic)", async function () {
    // Go's archive/tar keeps only the ASCII bytes of a name in the ustar field: t0/日本語 is stored there as t0/.
    const pax = paxRecord('path', 't0/日本語')
    const archive = Buffer.concat([
      ustarHeader('t0/PaxHeaders.0/', 'x', pax.length),
      padded(pax),
      ustarHeader('t0/', '0', 5),
      padded(Buffer.from('hello')),
      ustarHeader('t0/next', '0', 3),
      padded(Buffer.from('abc')),
      Buffer.alloc(1024),
    ])
    const seen: string[] = []
    await forEachTarEntry(PassThrough.from([archive]), async (header, entry) => {
      seen.push(`${header.name} ${header.type} ${header.size} ${(await buffer(entry)).toString()}`)
    })
    expect(seen).to.deep.equal(['t0/日本語 file 5 hello', 't0/next file 3 abc'])
  })

  it('still reads a plain file entry whose name ends with a slash as a folder (old tars)', async function () {
    const seen: string[] = []
    const archive = Buffer.concat([ustarHeader('old/', '0', 0), Buffer.alloc(1024)])
    await forEachTarEntry(PassThrough.from([archive]), async (header) => void seen.push(`${header.name} ${header.type}`))
    expect(seen).to.deep.equal(['old/ directory'])
  })
})
