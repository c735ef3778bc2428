/**
 * @module sources/local/tarWorker/tarWorkerTree
 * A local folder's tar bytes built in a worker thread (`tarWorkerMain.ts`): the walk, every read, the
 * headers and paddings leave the main thread, which keeps hashing, compression dispatch and storage
 * writes. The chunks (~256 KiB, their memory transferred) come out in order.
 *
 * - Backpressure: the worker posts at most `maxInFlight` steps ahead of the consumer (about 1 MiB), then
 *   sleeps on a shared counter that this side decrements (and notifies) as it hands each step on.
 * - Cancel: `signal` (or the consumer stopping) sets a shared flag that the worker checks before every
 *   entry and every read; it closes its descriptors and ends, and this side waits for its exit, so no
 *   descriptor of the tree is left open when the generator is done.
 * - Progress: files, bytes and the current file reach `hooks.onProgress` once per step, not per file.
 * - Fallback: when no worker can start (no worker code found, or it fails to load), the same builder
 *   (`treeTar.ts`) runs in this thread, a step per turn.
 */
import { Worker } from 'node:worker_threads'
import type { SourceContext, TarChunkHooks } from '../../types.js'
import { topOf } from '../localWalk.js'
import { cancelSlot, holdingSlot, inFlightSlot, type TarWorkerData, type TarWorkerMessage } from './protocol.js'
import { TreeTar, type TreeTarStep } from './treeTar.js'
import { tarWorkerUrl } from './tarWorkerUrl.js'

export interface TarWorkerTreeOptions {
  root: string
  name: string
  exclude: string[]
  signal: AbortSignal
  hooks: TarChunkHooks
  log: SourceContext['log']
  /** Build in this thread even when a worker could start (tests). */
  inThread?: boolean
  /** Steps the worker builds ahead of the consumer (~256 KiB each). @default 4 */
  maxInFlight?: number
  /** The worker's code (tests: one that fails to load). @default `tarWorkerUrl()` */
  workerUrl?: URL
}

let live = 0
/** Tar worker threads started and not yet exited, in this process (tests check a cancel leaves none). */
export function liveTarWorkers(): number {
  return live
}

/** The control words of the live workers. */
const controls = new Set<Int32Array>()
/** For each live tar worker asleep on backpressure, the steps it holds (tests wait for the hold itself). */
export function tarWorkersHolding(): number[] {
  return [...controls].map((control) => Atomics.load(control, holdingSlot)).filter((held) => held > 0)
}

let stepsReceived = 0
/** Steps the tar workers of this process have posted so far (tests check backpressure holds them). */
export function tarWorkerStepsReceived(): number {
  return stepsReceived
}

export async function* tarWorkerTree(options: TarWorkerTreeOptions): AsyncGenerator<Buffer> {
  options.signal.throwIfAborted()
  const top = await topOf(options.root, options.name)
  const url = options.inThread ? undefined : (options.workerUrl ?? (await tarWorkerUrl()))
  const worker = url && startWorker(url, options, { mode: top.mode, mtimeMs: top.mtime.getTime() })
  if (worker) {
    const first = await worker.next()
    if (first !== 'failed') {
      yield* worker.rest(first)
      return
    }
  }
  if (!options.inThread) options.log('info', `source "${options.name}": the tar worker could not start; building the tar in the main thread`)
  yield* inThread(options, top)
}

/** What a step tells the hooks and the log. */
function report(options: TarWorkerTreeOptions, step: Pick<TreeTarStep, 'files' | 'bytes' | 'current' | 'changed' | 'recorded'>): void {
  if (step.files > 0 || step.bytes > 0) options.hooks.onProgress?.(step.files, step.bytes, step.current)
  for (const file of step.changed) options.hooks.onFileChanged?.(file.name, file.announced, file.read)
  if (step.recorded.byteLength > 0) options.hooks.onRecorded?.(step.recorded)
}

async function* inThread(options: TarWorkerTreeOptions, top: { mode: number; mtime: Date }): AsyncGenerator<Buffer> {
  const { signal } = options
  const record = options.hooks.record
  const tree = new TreeTar({ ...options, top, check: () => signal.throwIfAborted(), ...(record && { record }) })
  try {
    while (!tree.done) {
      const step = tree.step()
      report(options, step)
      yield* step.chunks
      // A turn of the event loop between steps (timers, the API, the abort listener).
      await new Promise((resolve) => setImmediate(resolve))
    }
  } finally {
    tree.close()
  }
}

type Next = TarWorkerMessage | 'failed'

/** A started worker: `next()` gives its first message (or 'failed' when it could not load), `rest` the chunks. */
function startWorker(url: URL, options: TarWorkerTreeOptions, top: TarWorkerData['top']) {
  const control = new Int32Array(new SharedArrayBuffer(12))
  const data: TarWorkerData = {
    root: options.root,
    name: options.name,
    exclude: options.exclude,
    top,
    control: control.buffer as SharedArrayBuffer,
    maxInFlight: options.maxInFlight ?? 4,
    ...(options.hooks.record && { record: options.hooks.record }),
  }
  let worker: Worker
  try {
    // No inherited flags (tsx's loader would cost ~30 MiB); a small young generation: the chunks are
    // ArrayBuffers outside the worker's heap (4 MiB walked 200k tiny files ~8% faster than 1 MiB, measured).
    worker = new Worker(url, { workerData: data, execArgv: [], resourceLimits: { maxYoungGenerationSizeMb: 4 } })
  } catch {
    return undefined
  }
  live++
  controls.add(control)
  const queue: Next[] = []
  let wake: (() => void) | undefined
  let exited = false
  let failure: Error | undefined
  const push = (item: Next) => {
    queue.push(item)
    wake?.()
  }
  worker.on('message', (message: TarWorkerMessage) => {
    stepsReceived++
    push(message)
  })
  // An error event is the worker's code failing to load or crashing (the walk's own errors come as messages).
  worker.on('error', (err) => {
    failure = err
    push('failed')
  })
  const exit = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      live--
      controls.delete(control)
      exited = true
      push('failed')
      resolve()
    }),
  )
  const cancel = () => {
    Atomics.store(control, cancelSlot, 1)
    Atomics.notify(control, inFlightSlot)
  }
  const next = async (): Promise<Next> => {
    while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve))
    wake = undefined
    return queue.shift()!
  }
  async function* rest(first: TarWorkerMessage): AsyncGenerator<Buffer> {
    const onAbort = () => {
      cancel()
      push('failed')
    }
    options.signal.addEventListener('abort', onAbort, { once: true })
    try {
      for (let message: Next = first; ; message = await next()) {
        options.signal.throwIfAborted()
        if (message === 'failed') throw failure ?? new Error(`source "${options.name}": the tar worker stopped unexpectedly`)
        if (message.kind === 'error') {
          throw Object.assign(new Error(message.message), message.code ? { code: message.code } : {})
        }
        for (const [level, text] of message.logs) options.log(level, text)
        report(options, message)
        for (const [memory, offset, length] of message.chunks) yield Buffer.from(memory, offset, length)
        Atomics.sub(control, inFlightSlot, 1)
        Atomics.notify(control, inFlightSlot)
        if (message.done) return
      }
    } finally {
      options.signal.removeEventListener('abort', onAbort)
      // Done, failed or stopped: the worker closes what it holds and ends; its exit is awaited, so no
      // descriptor of the tree outlives the generator.
      if (!exited) {
        cancel()
        await exit
      }
    }
  }
  return {
    next: async (): Promise<Next> => {
      const first = await next()
      // A worker that could not load: nothing was read yet; stop it and let the caller build in its thread.
      if (first === 'failed') {
        if (!exited) await worker.terminate()
        await exit
      }
      return first
    },
    rest,
  }
}
