import { expect } from 'chai'
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough, type Readable } from 'node:stream'
import { countLocalTrees } from '../../src/sources/local/countLocalTrees.js'
import { ProgressTracker } from '../../src/engine/progress/ProgressTracker.js'
import { localSource } from '../../src/sources/local/index.js'
import type { Source, SourceEntry } from '../../src/sources/types.js'
import { entriesOf } from '../support/entriesOf.js'

async function drain(stream: Readable): Promise<number> {
  let n = 0
  for await (const chunk of stream) n += (chunk as Buffer).length
  return n
}

describe('progress: ProgressTracker', () => {
  let dir: string
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'progress-tracker-'))
    mkdirSync(join(dir, 'tree', 'sub'), { recursive: true })
    writeFileSync(join(dir, 'tree', 'small.txt'), 'x'.repeat(100))
    writeFileSync(join(dir, 'tree', 'sub', 'big.bin'), randomBytes(3 * 1024 * 1024))
    writeFileSync(join(dir, 'tree', 'sub', 'skip.log'), randomBytes(5000))
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  it('counts files read whole, files streamed from disk and streams without bytesRead; notes source, file and phase', async () => {
    const tracker = new ProgressTracker({ kind: 'backup', startedAt: new Date(), storages: ['a', 'b'], totalBytes: 4 * 1024 * 1024 })
    const local = localSource.create({ type: 'local', name: 'site', path: join(dir, 'tree'), exclude: ['*.log'] }, { log: () => {} })
    const feed = new PassThrough()
    const dump: Source = {
      type: 'postgresql',
      name: 'db',
      async *batches(): AsyncIterable<SourceEntry[]> {
        yield [{ name: 'db/app.sql', type: 'file', mode: 0o600, mtime: new Date(), open: () => feed }]
      },
    }
    const [site, db] = tracker.trackSources([local, dump])
    expect(tracker.snapshot()).to.include({ phase: 'preparing', bytesRead: 0, filesRead: 0 })
    const signal = new AbortController().signal
    for await (const entry of entriesOf(site!, signal)) {
      // Small files come read (`data`, counted per batch); the large one is streamed.
      if (entry.type === 'file' && entry.open) await drain(entry.open(signal))
    }
    const afterSite = tracker.snapshot()
    expect(afterSite).to.include({ phase: 'archiving', currentSource: 'site', currentFile: 'sub/big.bin', filesRead: 2, bytesRead: 100 + 3 * 1024 * 1024 })

    const iterator = entriesOf(db!, signal)[Symbol.asyncIterator]()
    const entry = (await iterator.next()).value as SourceEntry
    const out = entry.open!(signal)
    const read = drain(out)
    feed.write(Buffer.alloc(1000))
    await new Promise((resolve) => setImmediate(resolve))
    const mid = tracker.snapshot()
    expect(mid).to.include({ phase: 'dumping', currentSource: 'db', currentFile: 'app.sql', filesRead: 3, bytesRead: afterSite.bytesRead + 1000 })
    feed.end(Buffer.alloc(24))
    expect(await read).to.equal(1024)
    expect(tracker.bytesRead()).to.equal(afterSite.bytesRead + 1024)
    expect(mid.storages).to.deep.equal([
      { storage: 'a', bytesWritten: 0, done: false },
      { storage: 'b', bytesWritten: 0, done: false },
    ])
    tracker.writtenTo(['b']).bytesWritten += 777
    tracker.storagesCommitted()
    expect(tracker.snapshot().storages).to.deep.equal([
      { storage: 'a', bytesWritten: 0, done: true },
      { storage: 'b', bytesWritten: 777, done: true },
    ])
  })

  it('counts what the tar worker of the local source reads (per chunk), for a tar archive', async () => {
    const tracker = new ProgressTracker({ kind: 'backup', startedAt: new Date(), storages: ['a'] })
    const local = localSource.create({ type: 'local', name: 'site', path: join(dir, 'tree'), exclude: ['*.log'] }, { log: () => {} })
    const [site] = tracker.trackSources([local])
    const chunks = site!.tarChunks!(new AbortController().signal, {})
    expect(chunks).not.to.equal(undefined)
    let bytes = 0
    for await (const chunk of chunks!) bytes += chunk.length
    expect(bytes).to.be.greaterThan(3 * 1024 * 1024)
    const progress = tracker.snapshot()
    expect(progress).to.include({ phase: 'archiving', currentSource: 'site', currentFile: 'sub/big.bin', filesRead: 2, bytesRead: 100 + 3 * 1024 * 1024 })
  })

  it('rate, percent and ETA from the samples; percent stays below 100 until reading is over', () => {
    let clock = 0
    let bytes = 0
    const ticks: number[] = []
    const onTick = (p: { bytesRead: number }) => ticks.push(p.bytesRead)
    const tracker = new ProgressTracker({ kind: 'backup', startedAt: new Date(0), storages: [], totalBytes: 10_000, now: () => clock, onTick })
    // Stand in for a file streamed from disk: its own bytesRead is what the tracker reads.
    const fake = Object.defineProperty(new PassThrough(), 'bytesRead', { get: () => bytes })
    ;(tracker as unknown as { count(reader: object, s: Readable): Readable }).count(
      (tracker as unknown as { reader(s: string, k: string): object }).reader('site', 'test'),
      fake,
    )
    tracker.phase('archiving')
    expect(tracker.snapshot()).to.not.have.property('etaSeconds')
    bytes = 2000
    clock = 1000
    ;(tracker as unknown as { sample(): void }).sample()
    expect(tracker.snapshot()).to.include({ bytesPerSecond: 2000, percent: 20, etaSeconds: 4 })
    bytes = 3000
    clock = 2000
    ;(tracker as unknown as { sample(): void }).sample()
    // Smoothed: 2000 + 0.3 * (1000 - 2000).
    expect(tracker.snapshot()).to.include({ bytesPerSecond: 1700, percent: 30, etaSeconds: 5 })
    bytes = 12_000
    expect(tracker.snapshot().percent).to.equal(99)
    tracker.phase('uploading')
    expect(tracker.snapshot()).to.include({ percent: 100 }).and.not.have.property('etaSeconds')
    expect(ticks).to.deep.equal([])
  })

  it('countLocalTrees sums file sizes under the trees, excludes applied', async () => {
    const total = await countLocalTrees([{ path: join(dir, 'tree'), exclude: ['*.log'] }, { path: join(dir, 'tree', 'sub') }], new AbortController().signal)
    expect(total).to.equal(100 + 3 * 1024 * 1024 + (3 * 1024 * 1024 + 5000))
    const stopped = new AbortController()
    stopped.abort(new Error('run over'))
    let error: unknown
    await countLocalTrees([{ path: join(dir, 'tree') }], stopped.signal).catch((err: unknown) => (error = err))
    expect((error as Error).message).to.equal('run over')
  })
})
