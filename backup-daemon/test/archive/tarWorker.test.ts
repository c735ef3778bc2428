/**
 * `sources/local/tarWorker/`: the local source's tar built in a worker thread. The archive is the very same,
 * byte for byte, as the one the main thread builds from `batches` and as the in-thread builder's,
 * and GNU tar restores it whole; warnings and progress cross the thread; a cancel while a large file is
 * copied rejects with its reason, ends the worker and leaves no descriptor open; a worker that cannot
 * load falls back to the in-thread builder; a file that shrinks or grows while read is padded or cut.
 */
import { expect } from 'chai'
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readlinkSync } from 'node:fs'
import { appendFile, mkdir, readFile, symlink, truncate, writeFile } from 'node:fs/promises'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { createArchive } from '../../src/archive/createArchive.js'
import { liveTarWorkers, tarWorkersHolding, tarWorkerStepsReceived, tarWorkerTree } from '../../src/sources/local/tarWorker/tarWorkerTree.js'
import { TreeTar } from '../../src/sources/local/tarWorker/treeTar.js'
import { LocalSource, type LocalSourceOptions } from '../../src/sources/local/index.js'
import { tempDir, waitFor } from '../engine/helpers.js'
import { openDescriptorsUnder } from '../support/openDescriptors.js'

async function collect(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(chunk)
  return Buffer.concat(chunks)
}

describe('sources/local/tarWorker: the local tar built in a worker thread', function () {
  this.timeout(60_000)
  let tmp: Awaited<ReturnType<typeof tempDir>>
  let root: string
  let bytes: Record<string, Buffer>
  const warnings: string[] = []
  const context = { log: (level: string, message: string) => void (level === 'warn' && warnings.push(message)) }
  const archive = (options: LocalSourceOptions, exclude: string[] = ['*.tmp']) =>
    collect(createArchive([new LocalSource('src', root, exclude, context, options)], { compression: 'tar', signal: new AbortController().signal }))

  beforeEach(async () => {
    tmp = await tempDir('tar-worker-')
    root = join(tmp.dir, 'tree')
    bytes = {
      empty: Buffer.alloc(0),
      'a/b511': randomBytes(511),
      'a/small-limit': randomBytes(256 * 1024),
      'a/large.bin': randomBytes(3 * 1024 * 1024 + 7),
      [`${'d'.repeat(70)}/${'e'.repeat(70)}/file`]: Buffer.from('a name over 100 bytes'),
      'ñandú/日本語.txt': Buffer.from('non-ASCII'),
    }
    for (let i = 0; i < 600; i++) bytes[`many/f${String(i).padStart(3, '0')}`] = randomBytes(i * 7)
    for (const [path, content] of Object.entries(bytes)) {
      await mkdir(join(root, path, '..'), { recursive: true })
      await writeFile(join(root, path), content)
    }
    await writeFile(join(root, 'skip.tmp'), 'excluded')
    await mkdir(join(tmp.dir, 'outside'))
    await writeFile(join(tmp.dir, 'outside', 'secret'), 'OUTSIDE SECRET')
    await symlink(join(tmp.dir, 'outside', 'secret'), join(root, 'link-out'))
    execFileSync('mkfifo', [join(root, 'fifo')])
    warnings.length = 0
  })
  afterEach(() => tmp.remove())

  it('is byte for byte the archive the main thread builds, and GNU tar restores it whole', async () => {
    const viaWorker = await archive({ tarBuilder: 'worker' })
    const workerWarnings = [...warnings]
    warnings.length = 0
    const viaBatches = await archive({ tarBuilder: 'batches' })
    const viaThread = await archive({ tarBuilder: 'thread' })
    expect(viaWorker.equals(viaBatches)).to.equal(true)
    expect(viaThread.equals(viaBatches)).to.equal(true)
    expect(liveTarWorkers()).to.equal(0)
    // The walk's warning (a FIFO is not archived) comes from the worker to the source's log.
    expect(workerWarnings.join('\n')).to.match(/skipped fifo \(not a file, folder or link\)/)

    const file = join(tmp.dir, 'out.tar')
    await writeFile(file, viaWorker)
    const restored = join(tmp.dir, 'restored')
    await mkdir(restored)
    execFileSync('tar', ['-xf', file, '-C', restored])
    for (const [path, content] of Object.entries(bytes)) expect((await readFile(join(restored, 'src', path))).equals(content), path).to.equal(true)
    expect(readlinkSync(join(restored, 'src', 'link-out'))).to.equal(join(tmp.dir, 'outside', 'secret'))
    const listing = execFileSync('tar', ['-tf', file], { encoding: 'utf8' })
    expect(listing).not.to.include('skip.tmp')
    expect(listing).not.to.include('fifo')
  })

  it('is used when compression leaves a core free: plain tar, or fewer gzip threads than cores; not when gzip takes every core', async () => {
    const tarred = async (compression: 'tar' | 'tar.gz', threads?: number) => {
      const before = tarWorkerStepsReceived()
      const source = new LocalSource('src', root, ['*.tmp'], context, { tarBuilder: 'worker' })
      const out = await collect(createArchive([source], { compression, threads, signal: new AbortController().signal }))
      return { steps: tarWorkerStepsReceived() - before, tar: compression === 'tar' ? out : gunzipSync(out) }
    }
    const plain = await tarred('tar')
    expect(plain.steps).to.be.greaterThan(0)
    const everyCore = await tarred('tar.gz', availableParallelism())
    expect(everyCore.steps).to.equal(0)
    expect(everyCore.tar.equals(plain.tar)).to.equal(true)
    if (availableParallelism() > 1) {
      const oneThread = await tarred('tar.gz', 1)
      expect(oneThread.steps).to.be.greaterThan(0)
      expect(oneThread.tar.equals(plain.tar)).to.equal(true)
    }
  })

  it('a configured path that is a file fails the same way under every builder, naming the source', async () => {
    const file = join(root, 'empty')
    for (const tarBuilder of ['batches', 'thread', 'worker'] as const) {
      const source = new LocalSource('src', file, [], context, { tarBuilder })
      const error = await collect(createArchive([source], { compression: 'tar', signal: new AbortController().signal })).catch((e: unknown) => e)
      expect((error as Error).message, tarBuilder).to.equal(`source "src": ${file} is not a directory`)
    }
  })

  it('reports files, bytes and the current file per chunk, as the walk reads them', async () => {
    let files = 0
    let read = 0
    const currents = new Set<string>()
    const chunks = tarWorkerTree({
      root,
      name: 'src',
      exclude: ['*.tmp'],
      signal: new AbortController().signal,
      log: () => {},
      hooks: {
        onProgress: (f, b, current) => {
          files += f
          read += b
          if (current) currents.add(current)
        },
      },
    })
    const tar = await collect(chunks)
    expect(files).to.equal(Object.keys(bytes).length)
    expect(read).to.equal(Object.values(bytes).reduce((sum, b) => sum + b.length, 0))
    expect(currents.has('src/a/large.bin')).to.equal(true)
    // Far fewer reports than files: one per step of ~256 KiB, not one per file.
    expect(currents.size).to.be.lessThan(files)
    expect(tar.length % 512).to.equal(0)
  })

  it('backpressure: the worker builds at most maxInFlight steps ahead of a consumer that stops reading', async () => {
    const controller = new AbortController()
    const before = tarWorkerStepsReceived()
    const chunks = tarWorkerTree({ root, name: 'src', exclude: [], signal: controller.signal, log: () => {}, hooks: {}, maxInFlight: 2 })
    const iterator = chunks[Symbol.asyncIterator]()
    expect((await iterator.next()).done).to.equal(false)
    // The tree is ~4 MiB (~16 steps). Wait for the worker to go to sleep on the hold, which it reports with
    // the steps it holds, or for a broken hold to post a third step. Asleep, it cannot post another until
    // a step is consumed, so the count below is final, however slow the machine.
    const received = () => tarWorkerStepsReceived() - before
    await waitFor(() => tarWorkersHolding().length > 0 || received() > 2, 30_000, 'the worker to hold or post a third step')
    expect(tarWorkersHolding()).to.deep.equal([2])
    // The second step may still be on its way to this thread.
    await waitFor(() => received() >= 2, 30_000, 'the second step')
    expect(received()).to.equal(2)
    expect(tarWorkersHolding()).to.deep.equal([2])
    // The first step is being handed on: the worker may build one more, then holds again.
    let rest = 0
    for (let step = await iterator.next(); !step.done; step = await iterator.next()) rest++
    expect(rest).to.be.greaterThan(8)
    expect(liveTarWorkers()).to.equal(0)
    expect(tarWorkersHolding()).to.deep.equal([])
  })

  it('a cancel while a large file is copied rejects with the reason, ends the worker and leaves no descriptor open', async () => {
    await writeFile(join(root, 'a', 'huge.bin'), randomBytes(24 * 1024 * 1024))
    const controller = new AbortController()
    const reason = new Error('cancelled by the test')
    const out = createArchive([new LocalSource('src', root, [], context, { tarBuilder: 'worker' })], { compression: 'tar', signal: controller.signal })
    let received = 0
    const error = await (async () => {
      for await (const chunk of out as AsyncIterable<Buffer>) {
        received += chunk.length
        // Past the small files of `a/` and into the huge one (read in 256 KiB steps).
        if (received > 2 * 1024 * 1024 && !controller.signal.aborted) controller.abort(reason)
      }
    })().then(
      () => undefined,
      (err: unknown) => err,
    )
    expect(error).to.equal(reason)
    // The generator's cleanup (the worker's exit awaited) runs as the stream is destroyed: wait for it.
    for (let i = 0; i < 1500 && (liveTarWorkers() > 0 || openDescriptorsUnder(root) > 0); i++) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(liveTarWorkers()).to.equal(0)
    expect(openDescriptorsUnder(root)).to.equal(0)
  })

  it('a worker that cannot load falls back to the builder in this thread, with the same archive', async () => {
    const broken = new URL(`data:text/javascript,${encodeURIComponent('import "./no-such-module.js"')}`)
    const logs: string[] = []
    const options = { root, name: 'src', exclude: ['*.tmp'], signal: new AbortController().signal, log: (_: string, m: string) => void logs.push(m), hooks: {} }
    const fallback = await collect(tarWorkerTree({ ...options, workerUrl: broken }))
    expect(logs.join('\n')).to.match(/the tar worker could not start; building the tar in the main thread/)
    logs.length = 0
    const worker = await collect(tarWorkerTree(options))
    expect(logs.join('\n')).not.to.match(/could not start/)
    expect(fallback.length).to.be.greaterThan(3 * 1024 * 1024)
    expect(fallback.equals(worker)).to.equal(true)
    expect(liveTarWorkers()).to.equal(0)
  })

  it('a large file that shrinks or grows while it is copied is zero-padded or cut to its header size, and reported', async () => {
    const large = join(root, 'a', 'large.bin')
    const size = bytes['a/large.bin']!.length
    for (const change of ['shrink', 'grow'] as const) {
      await writeFile(large, bytes['a/large.bin']!)
      const tree = new TreeTar({ root, name: 'src', exclude: [], top: { mode: 0o755, mtime: new Date() }, log: () => {} })
      const chunks: Buffer[] = []
      const changed: { name: string; announced: number; read: number }[] = []
      let copying = false
      try {
        while (!tree.done) {
          const step = tree.step()
          chunks.push(...step.chunks.map((c) => Buffer.from(c)))
          changed.push(...step.changed)
          // Once the copy of the large file has begun (its first read is in this step), change it.
          if (!copying && step.current === 'src/a/large.bin') {
            copying = true
            if (change === 'shrink') await truncate(large, 1000 * 1000)
            else await appendFile(large, 'more')
          }
        }
      } finally {
        tree.close()
      }
      expect(copying).to.equal(true)
      expect(changed, change).to.deep.equal([{ name: 'src/a/large.bin', announced: size, read: change === 'shrink' ? 1000 * 1000 : size + 1 }])
      const file = join(tmp.dir, `${change}.tar`)
      await writeFile(file, Buffer.concat([...chunks, Buffer.alloc(1024)]))
      const restored = join(tmp.dir, change)
      await mkdir(restored)
      execFileSync('tar', ['-xf', file, '-C', restored])
      const copy = await readFile(join(restored, 'src', 'a', 'large.bin'))
      expect(copy.length).to.equal(size)
      const original = bytes['a/large.bin']!
      const expected = change === 'shrink' ? Buffer.concat([original.subarray(0, 1000 * 1000), Buffer.alloc(size - 1000 * 1000)]) : original
      expect(copy.equals(expected)).to.equal(true)
      expect(await readFile(join(restored, 'src', 'a', 'b511'))).to.deep.equal(bytes['a/b511'])
    }
  })
})
