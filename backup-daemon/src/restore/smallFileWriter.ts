/**
 * @module restore/smallFileWriter
 * Small files written on a worker thread while the main thread reads the archive on (issue 42, a million
 * small files). A small file costs five system calls (open, write, fchmod, futimes, close) and its entry
 * costs JavaScript (reading, checking); on one thread the two add up: 100,000 files took 2.8 s of
 * JavaScript and 3.4 s in the kernel where `tar -x` took 2.7 s. Here they overlap on two cores.
 *
 * The worker makes the calls the main thread made (`smallFileWrites.js`, shared by both; a file is now
 * created with its mode, so most need no fchmod), with the restore's flags (O_EXCL, O_NOFOLLOW), on paths
 * below the same held folder (`/proc/self/fd/<fd>` is the process's, so the worker's too). Files go in
 * batches (at most 512 files or 1 MiB; a larger file alone), at most 4 batches in flight, so memory stays
 * bounded. Order: a file is queued only once its folders exist; whoever makes anything a later path could
 * go through or name (a folder, a link, a hard link) first waits for what is queued at that path
 * (`holds`, `settled()`). A restore of fewer files than one batch never starts a worker: they are written
 * on the main thread when it settles.
 */
import { readFileSync } from 'node:fs'
import { Worker } from 'node:worker_threads'

interface Batch {
  id: number
  flags: number
  umask: number
  paths: (string | Buffer)[]
  modes: number[]
  /** Seconds, as futimes takes them. */
  mtimes: number[]
  /** Where each file's body ends in `data`. */
  ends: number[]
  data: Uint8Array
}

/** The first file of a batch that failed: its index, and the fields of its error. */
interface BatchFailure {
  index: number
  message: string
  code?: string
  errno?: number
  syscall?: string
}

export interface QueuedFile {
  /** The path as the caller knows it (`holds` answers for it). */
  name: string
  /** The path given to open (bytes for a name that is not UTF-8). */
  path: string | Buffer
  /** The permission bits to set once the bytes are in. */
  mode: number
  mtime: Date
  /** Copied when queued: the caller may reuse it. */
  body: Buffer
}

export interface SmallFileWriter {
  /** Queues a file; waits only while too many batches are in flight. Rejects with an earlier file's failure. */
  write(file: QueuedFile): Promise<void>
  /** Whether a file queued at `name` may not be on disk yet (it is in a batch not yet answered). */
  holds(name: string): boolean
  /** Resolves once everything queued is written; rejects with the first failure. */
  settled(): Promise<void>
  /** Stops the worker: once this resolves nothing more is written (after a failure or a cancel, before the folder is removed). */
  close(): Promise<void>
}

const batchFiles = 512
const batchBytes = 1 << 20
const batchesInFlight = 4

const workerUrl = new URL('./smallFileWorker.js', import.meta.url)
const writesUrl = new URL('./smallFileWrites.js', import.meta.url).href
type WriteBatch = (batch: Batch) => BatchFailure | undefined

/**
 * The process's umask, read without changing it (`process.umask()` sets it to 0 and back, a race with every
 * other thread creating files); unknown: every bit, so every file gets its fchmod.
 */
function currentUmask(): number {
  try {
    const line = /^Umask:\s*([0-7]+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))
    return line ? parseInt(line[1]!, 8) : 0o777
  } catch {
    return 0o777
  }
}

const asError = (failure: BatchFailure) =>
  Object.assign(new Error(failure.message), {
    ...(failure.code !== undefined && { code: failure.code }),
    ...(failure.errno !== undefined && { errno: failure.errno }),
    ...(failure.syscall !== undefined && { syscall: failure.syscall }),
  })

/** A writer of small files created with `flags` (the same for every file of one restore). */
export function smallFileWriter(flags: number): SmallFileWriter {
  // Read per restore: a process may change its umask (systemd's UMask= is set before we start).
  const umask = currentUmask()
  let worker: Worker | undefined
  let failure: Error | undefined
  let nextId = 0
  let pending = fresh(batchBytes)
  /** Batches sent and not yet answered, oldest first, each with its files' names. */
  const inFlight = new Map<number, { done: Promise<void>; resolve: () => void; names: string[] }>()
  /** The names of the files queued and not yet answered for (bounded by the batches in flight). */
  const unwritten = new Set<string>()

  /**
   * The next batch, its bodies copied in as they are queued: a body is a view of the archive's chunk, which
   * its source owns. Not from Node's shared pool (allocUnsafeSlow), so its memory can move to the worker.
   */
  function fresh(capacity: number): Batch & { at: number; names: string[] } {
    return { id: ++nextId, flags, umask, paths: [], modes: [], mtimes: [], ends: [], data: Buffer.allocUnsafeSlow(capacity), at: 0, names: [] }
  }
  /** The pending batch as the worker takes it, and its files' names. */
  const take = (): { batch: Batch; names: string[] } => {
    const { at, names, ...batch } = pending
    pending = fresh(batchBytes)
    return { batch: { ...batch, data: batch.data.subarray(0, at) }, names }
  }
  const written = (names: string[], answer: BatchFailure | undefined) => {
    if (answer) failure ??= asError(answer)
    for (const name of names) unwritten.delete(name)
  }
  const failAll = (err: Error) => {
    failure ??= err
    for (const { resolve } of inFlight.values()) resolve()
    inFlight.clear()
  }
  const started = () => {
    if (worker) return worker
    worker = new Worker(workerUrl, { execArgv: [], resourceLimits: { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 16 } })
    worker.on('message', (reply: { id: number; failure?: BatchFailure }) => {
      const sent = inFlight.get(reply.id)
      written(sent?.names ?? [], reply.failure)
      sent?.resolve()
      inFlight.delete(reply.id)
    })
    worker.on('error', (err) => failAll(err))
    worker.on('exit', (code) => failAll(new Error(`the restore's file writer stopped (exit code ${code})`)))
    return worker
  }
  const send = () => {
    const { batch, names } = take()
    let resolve!: () => void
    const done = new Promise<void>((r) => (resolve = r))
    inFlight.set(batch.id, { done, resolve, names })
    started().postMessage(batch, [batch.data.buffer as ArrayBuffer])
  }
  const check = () => {
    if (failure) throw failure
  }
  return {
    async write(file) {
      check()
      if (pending.at + file.body.length > pending.data.length) {
        if (pending.paths.length) send()
        if (file.body.length > pending.data.length) pending = fresh(file.body.length)
      }
      pending.at += file.body.copy(pending.data, pending.at)
      pending.names.push(file.name)
      unwritten.add(file.name)
      pending.ends.push(pending.at)
      pending.paths.push(file.path)
      pending.modes.push(file.mode)
      pending.mtimes.push(file.mtime.getTime() / 1000)
      if (pending.paths.length >= batchFiles) send()
      while (inFlight.size >= batchesInFlight) await inFlight.values().next().value!.done
      check()
    },
    holds: (name) => unwritten.has(name),
    async settled() {
      check()
      if (pending.paths.length && !worker) {
        // Fewer files than one batch so far: the main thread writes them (no worker to start).
        const { writeBatch } = (await import(writesUrl)) as { writeBatch: WriteBatch }
        const { batch, names } = take()
        written(names, writeBatch(batch))
      } else if (pending.paths.length) send()
      while (inFlight.size) await inFlight.values().next().value!.done
      check()
    },
    async close() {
      const stopping = worker
      worker = undefined
      if (!stopping) return
      stopping.removeAllListeners('exit')
      await stopping.terminate()
      failAll(new Error('the restore was stopped'))
    },
  }
}
