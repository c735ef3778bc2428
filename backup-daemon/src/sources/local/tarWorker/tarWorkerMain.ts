/**
 * @module sources/local/tarWorker/tarWorkerMain
 * The tar worker thread's entry: builds a local folder's tar (`treeTar.ts`) step by step and posts each
 * step's chunks to the main thread, their memory transferred. At most `maxInFlight` steps wait in the
 * main thread; the worker then sleeps on the shared counter until one is consumed (or a cancel). Every
 * descriptor is closed before the thread ends, whatever ends it (done, error, cancel).
 */
import { parentPort, workerData } from 'node:worker_threads'
import { cancelSlot, holdingSlot, inFlightSlot, type StepMessage, type TarWorkerData, type TarWorkerMessage } from './protocol.js'
import { TreeTar } from './treeTar.js'

const data = workerData as TarWorkerData
const control = new Int32Array(data.control)
const cancelled = new Error('cancelled')
const logs: StepMessage['logs'] = []

const check = () => {
  if (Atomics.load(control, cancelSlot) !== 0) throw cancelled
}
const post = (message: TarWorkerMessage, transfer: ArrayBuffer[] = []) => parentPort!.postMessage(message, transfer)

const tree = new TreeTar({
  root: data.root,
  name: data.name,
  exclude: data.exclude,
  top: { mode: data.top.mode, mtime: new Date(data.top.mtimeMs) },
  log: (level, message) => void logs.push([level, message]),
  check,
  ...(data.record && { record: data.record }),
})

try {
  for (;;) {
    // Backpressure: sleep while the main thread holds `maxInFlight` steps (woken by its notify).
    for (let held = Atomics.load(control, inFlightSlot); held >= data.maxInFlight; held = Atomics.load(control, inFlightSlot)) {
      check()
      Atomics.store(control, holdingSlot, held)
      Atomics.wait(control, inFlightSlot, held)
      Atomics.store(control, holdingSlot, 0)
    }
    check()
    const step = tree.step()
    const current = tree.tar.current
    const moved = new Set<ArrayBuffer>()
    const chunks: StepMessage['chunks'] = step.chunks.map((chunk) => {
      // A view of the chunk still being written is copied (into memory of its own: never Node's shared
      // pool, which a transfer would take from this thread); a finished chunk's memory moves as it is.
      const own = chunk.buffer === current ? new Uint8Array(chunk) : chunk
      moved.add(own.buffer as ArrayBuffer)
      return [own.buffer as ArrayBuffer, own.byteOffset, own.byteLength]
    })
    const { files, bytes, changed, recorded, done } = step
    // The record's items are in memory of their own (`RecordText.take`): it moves too.
    if (recorded.byteLength > 0) moved.add(recorded.buffer as ArrayBuffer)
    Atomics.add(control, inFlightSlot, 1)
    post({ kind: 'step', chunks, files, bytes, current: step.current, changed, recorded, logs: logs.splice(0), done }, [...moved])
    if (done) break
  }
} catch (err) {
  const error = err as NodeJS.ErrnoException
  post({ kind: 'error', message: error.message, code: error.code, cancelled: err === cancelled })
} finally {
  tree.close()
}
