/**
 * Parallel gzip (`archive/parallelGzip.ts`): the members come out in input order and form one gzip file
 * that `gzip -t`, `gzip -d` and `tar -xzf` read; random-looking stretches are stored, the rest deflated;
 * a cancel mid-way terminates every worker thread.
 */
import { expect } from 'chai'
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createWriteStream, readdirSync } from 'node:fs'
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable, Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { gunzipSync, gzipSync } from 'node:zlib'
import { createArchive } from '../../src/archive/createArchive.js'
import { liveGzipWorkers, parallelGzip } from '../../src/archive/parallelGzip.js'
import { LocalSource } from '../../src/sources/local/index.js'
import type { Source, SourceEntry } from '../../src/sources/types.js'
import { tempDir, waitFor } from '../engine/helpers.js'
import { gzipMembers } from './gzipMembers.js'

/** Compressible text and random bytes, so members differ in size and finish out of order. */
function mixed(size: number): Buffer {
  const out = Buffer.alloc(size)
  for (let offset = 0; offset < size; offset += 8192) {
    const piece = (offset / 8192) % 3 === 0 ? randomBytes(8192) : Buffer.from(`line ${offset} of some text\n`.repeat(400))
    piece.copy(out, offset, 0, Math.min(8192, size - offset))
  }
  return out
}

/** Feeds `data` in uneven slices (1 byte to 100 KiB) so blocks straddle chunks. */
function uneven(data: Buffer): Readable {
  const slices: Buffer[] = []
  for (let offset = 0, i = 0; offset < data.length; i++) {
    const n = [1, 100_000, 777, 65_536, 3][i % 5]!
    slices.push(data.subarray(offset, offset + n))
    offset += n
  }
  return Readable.from(slices)
}

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

/** OS threads of this process: a worker thread is one. */
const threads = () => readdirSync('/proc/self/task').length

describe('archive/parallelGzip', function () {
  this.timeout(120_000)
  let tmp: Awaited<ReturnType<typeof tempDir>>
  beforeEach(async () => (tmp = await tempDir()))
  afterEach(() => tmp.remove())

  it('emits one member per block, in input order, readable by gzip -t and gzip -d', async () => {
    const data = mixed(5 * 1024 * 1024 + 12_345)
    const blockSize = 64 * 1024
    const out = await collect(uneven(data).pipe(parallelGzip({ threads: 3, blockSize, level: 6 })))
    expect(gzipMembers(out)).to.equal(Math.ceil(data.length / blockSize))
    expect(gunzipSync(out).equals(data)).to.equal(true)
    const file = join(tmp.dir, 'x.gz')
    await writeFile(file, out)
    execFileSync('gzip', ['-t', file])
    expect(execFileSync('gzip', ['-dc', file], { maxBuffer: 1 << 24 }).equals(data)).to.equal(true)
    await waitFor(() => liveGzipWorkers() === 0, 5000, 'workers to exit after the end')
  })

  it('an empty input is one empty member (a valid gzip file), and every level round-trips', async () => {
    const empty = await collect(Readable.from([]).pipe(parallelGzip({ threads: 2 })))
    expect(gzipMembers(empty)).to.equal(1)
    expect(gunzipSync(empty).length).to.equal(0)
    const data = mixed(300_000)
    const fast = await collect(Readable.from([data]).pipe(parallelGzip({ threads: 2, level: 1, blockSize: 100_000 })))
    const small = await collect(Readable.from([data]).pipe(parallelGzip({ threads: 2, level: 9, blockSize: 100_000 })))
    expect(gunzipSync(fast).equals(data)).to.equal(true)
    expect(gunzipSync(small).equals(data)).to.equal(true)
    expect(small.length).to.be.below(fast.length)
  })

  it('copies random-looking stretches into stored blocks and deflates the rest, every member whole', async () => {
    // 16 KiB pieces (the worker's grain), text (t) or random (r): runs of each within and across blocks.
    const piece = 16 * 1024
    const plan = 'trrttrtrrrrrtttrrtrtttttrrrrrrrrt'
    const data = Buffer.concat(
      [...plan].map((kind, i) => (kind === 'r' ? randomBytes(piece) : Buffer.from(`piece ${i}: some text that compresses\n`.repeat(piece)).subarray(0, piece))),
    )
    const blockSize = 4 * piece
    const gzip = parallelGzip({ threads: 2, blockSize, level: 6 })
    const out = await collect(uneven(data).pipe(gzip))
    expect(gzipMembers(out)).to.equal(Math.ceil(data.length / blockSize))
    expect(gunzipSync(out).equals(data)).to.equal(true)
    const file = join(tmp.dir, 'mixed.gz')
    await writeFile(file, out)
    execFileSync('gzip', ['-t', file])
    expect(execFileSync('gzip', ['-dc', file], { maxBuffer: 1 << 24 }).equals(data)).to.equal(true)
    expect(gzip.storedBytes).to.equal([...plan].filter((kind) => kind === 'r').length * piece)
    // No larger than zlib's own members of the same blocks (deflate gains nothing on random bytes).
    let zlibOwn = 0
    for (let offset = 0; offset < data.length; offset += blockSize) zlibOwn += gzipSync(data.subarray(offset, offset + blockSize), { level: 6 }).length
    expect(out.length).to.be.at.most(Math.ceil(zlibOwn * 1.01))
  })

  it('compresses a block with nothing random-looking exactly as zlib does, storing nothing', async () => {
    const data = mixed(700_000)
    const blockSize = 128 * 1024
    const gzip = parallelGzip({ threads: 2, blockSize, level: 6 })
    const out = await collect(Readable.from([data]).pipe(gzip))
    const zlibOwn: Buffer[] = []
    for (let offset = 0; offset < data.length; offset += blockSize) zlibOwn.push(gzipSync(data.subarray(offset, offset + blockSize), { level: 6 }))
    expect(out.equals(Buffer.concat(zlibOwn))).to.equal(true)
    expect(gzip.storedBytes).to.equal(0)
  })

  it('keeps at most a few blocks in flight when the reader is slow (backpressure)', async () => {
    const blockSize = 64 * 1024
    const total = 64
    let produced = 0
    const source = new Readable({
      read() {
        produced += blockSize
        this.push(produced > total * blockSize ? null : randomBytes(blockSize))
      },
    })
    const threads = 2
    const gzip = parallelGzip({ threads, blockSize })
    source.pipe(gzip)
    // Nobody reads. Wait for the pipe to stall: a member waits to be read (the Transform holds its next
    // callback), its input side is full (the pipe paused the source) and the source's own buffer is full
    // (it is not asked to read again). From then on nothing can move until someone reads. A writer that
    // swallowed the source would end it, or pass the bound, instead.
    const bound = threads * 2 + 3
    const stalled = () =>
      gzip.readableLength >= gzip.readableHighWaterMark && gzip.writableNeedDrain && source.isPaused() && source.readableLength >= source.readableHighWaterMark
    await waitFor(() => stalled() || source.readableEnded || produced > bound * blockSize, 30_000, 'the pipe to stall')
    // Blocks in flight or unread (threads * 2), one in each buffer, one spare.
    expect(produced / blockSize, 'blocks produced when the pipe stalled').to.be.at.most(bound)
    expect(stalled(), 'stalled').to.equal(true)
    const out = await collect(gzip)
    expect(gunzipSync(out).length).to.equal(total * blockSize)
  })

  it('a cancel mid-way fails the stream with the reason and terminates every worker thread', async () => {
    // Warm up (the libuv pool and friends start their threads once), then count the OS threads.
    await collect(Readable.from([mixed(200_000)]).pipe(parallelGzip({ threads: 2, blockSize: 65_536 })))
    await waitFor(() => liveGzipWorkers() === 0, 5000, 'warm-up workers to exit')
    const before = threads()
    const controller = new AbortController()
    const endless = new Readable({
      read() {
        this.push(randomBytes(256 * 1024))
      },
    })
    let received = 0
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        received += chunk.length
        if (received > 2 * 1024 * 1024 && !controller.signal.aborted) {
          expect(liveGzipWorkers()).to.equal(3)
          expect(threads()).to.be.at.least(before + 3)
          controller.abort(new Error('cancelled by test'))
        }
        callback()
      },
    })
    const err = await pipeline(endless, parallelGzip({ threads: 3, blockSize: 256 * 1024, signal: controller.signal }), sink, {
      signal: controller.signal,
    }).catch((e: Error) => e)
    expect(err).to.be.instanceOf(Error)
    await waitFor(() => liveGzipWorkers() === 0, 5000, 'workers to exit after the cancel')
    await waitFor(() => threads() <= before, 5000, 'the OS threads to go')
  })

  it('createArchive tar.gz: gzip -t passes, tar -xzf restores the tree byte for byte', async () => {
    const root = join(tmp.dir, 'src')
    const expected = new Map<string, Buffer>()
    for (let i = 0; i < 120; i++) {
      const folder = join(root, `d${i % 7}`)
      await mkdir(folder, { recursive: true })
      // Sizes from 0 to ~600 KiB: entries straddle the 1 MiB members in every way.
      const body = i % 2 ? randomBytes((i * 5003) % 600_000) : Buffer.from(`file ${i}\n`.repeat(i * 97))
      await writeFile(join(folder, `f${i}`), body)
      expected.set(`d${i % 7}/f${i}`, body)
    }
    const file = join(tmp.dir, 'out.tar.gz')
    const source = new LocalSource('files', root, [], { log: () => {} })
    await pipeline(createArchive([source], { compression: 'tar.gz', threads: 2, signal: new AbortController().signal }), createWriteStream(file))
    const bytes = await readFile(file)
    expect(gzipMembers(bytes)).to.be.at.least(Math.floor([...expected.values()].reduce((n, b) => n + b.length, 0) / (1024 * 1024)))
    execFileSync('gzip', ['-t', file])
    const out = join(tmp.dir, 'extracted')
    await mkdir(out)
    execFileSync('tar', ['-xzf', file, '-C', out])
    for (const [name, body] of expected) expect((await readFile(join(out, 'files', name))).equals(body), name).to.equal(true)
    expect((await readdir(join(out, 'files'))).length).to.equal(7)
  })

  it('createArchive tar.gz: an abort while compressing stops the archive and its workers', async () => {
    const controller = new AbortController()
    const endless: Source = {
      type: 'test',
      name: 'endless',
      async *batches(): AsyncIterable<SourceEntry[]> {
        for (let i = 0; ; i++) {
          const body = randomBytes(128 * 1024)
          yield [{ name: `endless/${i}`, type: 'file', mode: 0o644, mtime: new Date(), size: body.length, open: () => Readable.from([body]) }]
        }
      },
    }
    const archive = createArchive([endless], { compression: 'tar.gz', threads: 2, signal: controller.signal })
    let received = 0
    const err = await pipeline(
      archive,
      new Writable({
        write(chunk: Buffer, _encoding, callback) {
          received += chunk.length
          if (received > 3 * 1024 * 1024) controller.abort(new Error('cancelled by test'))
          callback()
        },
      }),
    ).catch((e: Error) => e)
    expect(err).to.be.instanceOf(Error)
    await waitFor(() => liveGzipWorkers() === 0, 5000, 'workers to exit after the abort')
  })
})
