/**
 * @module archive/parallelGzip
 * gzip on every core, as `pigz` does: the byte stream is cut into blocks, each block is compressed into
 * an independent gzip member by a pool of worker threads (`archive/parallelGzipWorker.js`), and the
 * members are emitted in input order. A concatenation of gzip members is one valid gzip file (RFC 1952
 * §2.2): `gzip -d`, `tar -xzf`, Node's gunzip and browsers read it whole.
 *
 * - Order: every block gets a sequence number and a promise; the promises sit in a FIFO and only its
 *   head is ever pushed downstream, so a block finished early waits for the ones before it.
 * - Backpressure: at most `threads * 2` blocks are in flight; the next input chunk is only accepted when
 *   the oldest block has been handed downstream, and Node's Transform itself holds the writer back while
 *   the readable side is full. Memory is about `blockSize * threads * 4` (blocks in and members out).
 * - Cancel: `signal` (or destroying the stream) terminates every worker at once; nothing is emitted after.
 * - Incompressible stretches (media, archives, encrypted files) are copied into stored blocks instead of
 *   searched by zlib: 25x faster on them, at most ~0.5% larger (the worker's header says how they are found).
 */
import { availableParallelism } from 'node:os'
import { Transform, type TransformCallback } from 'node:stream'
import { Worker } from 'node:worker_threads'

export interface ParallelGzipOptions {
  /** gzip level 1-9. @default 6 (`gzip`'s and `pigz`'s default) */
  level?: number
  /** Worker threads. @default `os.availableParallelism()` */
  threads?: number
  /** Bytes per member. @default 1 MiB (measured: 128 KiB to 4 MiB compress equally fast here; smaller blocks lose ratio, larger ones cost memory) */
  blockSize?: number
  signal?: AbortSignal
}

const workerUrl = new URL('./parallelGzipWorker.js', import.meta.url)

let live = 0
/** Worker threads started and not yet exited, in this process (tests check a cancel leaves none). */
export function liveGzipWorkers(): number {
  return live
}

interface Reply {
  id: number
  member: ArrayBuffer
  length: number
  /** The input block, handed back for reuse. */
  block: ArrayBuffer
  /** Bytes of the block stored as they are (they looked incompressible). */
  stored: number
}

interface Done {
  member: Buffer
  block: ArrayBuffer
  stored: number
}

/** A fixed set of workers; each block goes to an idle one, or waits for one. */
class Pool {
  private readonly idle: Worker[] = []
  private readonly waiting: { id: number; block: ArrayBuffer; length: number }[] = []
  private readonly pending = new Map<number, { resolve(done: Done): void; reject(err: Error): void }>()
  private readonly workers: Worker[] = []
  private closed = false

  constructor(threads: number, level: number) {
    for (let i = 0; i < threads; i++) {
      // No inherited flags (tsx's loader would cost ~30 MiB per worker) and a small heap: the worker
      // holds a message or two; the blocks and members are ArrayBuffers outside its heap.
      const worker = new Worker(workerUrl, { workerData: { level }, execArgv: [], resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 8 } })
      live++
      worker.on('message', (reply: Reply) => {
        this.pending.get(reply.id)?.resolve({ member: Buffer.from(reply.member, 0, reply.length), block: reply.block, stored: reply.stored })
        this.pending.delete(reply.id)
        this.release(worker)
      })
      worker.on('error', (err) => this.fail(err))
      worker.on('exit', (code) => {
        live--
        if (!this.closed) this.fail(new Error(`gzip worker exited with code ${code}`))
      })
      this.workers.push(worker)
      this.idle.push(worker)
    }
  }

  /** Compresses `length` bytes of `block` (transferred: the caller must not touch it again). */
  compress(id: number, block: ArrayBuffer, length: number): Promise<Done> {
    const result = new Promise<Done>((resolve, reject) => this.pending.set(id, { resolve, reject }))
    this.waiting.push({ id, block, length })
    const worker = this.idle.pop()
    if (worker) this.release(worker)
    return result
  }

  private release(worker: Worker): void {
    const next = this.waiting.shift()
    if (!next) {
      this.idle.push(worker)
      return
    }
    worker.postMessage(next, [next.block])
  }

  private fail(err: Error): void {
    for (const { reject } of this.pending.values()) reject(err)
    this.pending.clear()
    void this.close()
  }

  /**
   * Ends every worker; resolves once all have exited. A worker is asked to close its port and end on its
   * own (after the block it may be compressing), and terminated only if it has not within a second:
   * `worker.terminate()` interrupts the thread wherever it is, and Node 20 aborted the whole process once
   * (an assertion in its platform code, `NodePlatform::ForIsolate`) when a worker isolate was torn down
   * under load while V8 was still compiling for it.
   */
  async close(): Promise<void> {
    this.closed = true
    this.waiting.length = 0
    await Promise.all(
      this.workers.map(async (worker) => {
        // Already gone (it failed): `threadId` is -1 once a worker has exited.
        if (worker.threadId === -1) return
        const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()))
        worker.postMessage('close')
        const timer = setTimeout(() => void worker.terminate(), 1000)
        await exited
        clearTimeout(timer)
      }),
    )
  }
}

/** The gzip Transform, with what it found incompressible so far. */
export interface ParallelGzip extends Transform {
  /** Input bytes copied into stored blocks rather than deflated (runs that looked random). */
  readonly storedBytes: number
}

/** A Transform: bytes in, a multi-member gzip out, compressed on `threads` worker threads. */
export function parallelGzip(options: ParallelGzipOptions = {}): ParallelGzip {
  const level = options.level ?? 6
  const threads = Math.max(1, options.threads ?? availableParallelism())
  const blockSize = options.blockSize ?? 1024 * 1024
  const maxInFlight = threads * 2
  let pool: Pool | undefined
  /** Blocks back from the workers, refilled rather than allocated: no 1 MiB of garbage per block. */
  const free: ArrayBuffer[] = []
  const take = () => {
    const reused = free.pop()
    return reused ? Buffer.from(reused) : Buffer.allocUnsafeSlow(blockSize)
  }
  let block = take()
  let filled = 0
  let sequence = 0
  let storedBytes = 0
  const inFlight: Promise<Done>[] = []

  const dispatch = () => {
    pool ??= new Pool(threads, level)
    const done = pool.compress(sequence++, block.buffer as ArrayBuffer, filled)
    // Rejections are seen when the head is awaited; this keeps a later one from being "unhandled".
    done.catch(() => {})
    inFlight.push(done)
    block = take()
    filled = 0
  }

  /** Pushes finished members in order; waits for the oldest while more than `limit` are in flight. */
  const drain = async (stream: Transform, limit: number) => {
    while (inFlight.length > limit) {
      const done = await inFlight.shift()!
      free.push(done.block)
      storedBytes += done.stored
      stream.push(done.member)
    }
  }

  const stream = new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      let offset = 0
      while (offset < chunk.length) {
        const n = Math.min(blockSize - filled, chunk.length - offset)
        chunk.copy(block, filled, offset, offset + n)
        filled += n
        offset += n
        if (filled === blockSize) dispatch()
      }
      drain(stream, maxInFlight - 1).then(() => callback(), callback)
    },
    flush(callback: TransformCallback) {
      // An empty input still makes one (empty) member: a zero-byte file is not a gzip file.
      if (filled > 0 || sequence === 0) dispatch()
      drain(stream, 0)
        .then(() => pool?.close())
        .then(() => callback(), callback)
    },
    destroy(err, callback) {
      inFlight.length = 0
      const closing = pool?.close() ?? Promise.resolve()
      closing.then(
        () => callback(err),
        () => callback(err),
      )
    },
  })
  Object.defineProperty(stream, 'storedBytes', { get: () => storedBytes })
  if (options.signal) {
    const signal = options.signal
    const abort = () => stream.destroy(signal.reason as Error)
    if (signal.aborted) queueMicrotask(abort)
    else {
      signal.addEventListener('abort', abort, { once: true })
      stream.once('close', () => signal.removeEventListener('abort', abort))
    }
  }
  return stream as ParallelGzip
}
