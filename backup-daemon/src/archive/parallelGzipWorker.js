/**
 * @module archive/parallelGzipWorker
 * The worker thread behind `archive/parallelGzip.ts`: compresses each block it is sent into one
 * complete gzip member and sends it back with its id. Plain JavaScript on purpose: it is loaded by
 * `new Worker(url)` both under tsx (tests) and from the esbuild bundle (whose `import.meta.url` points
 * at the source folder, where this file sits), with no loader needed in either case.
 */
import v8 from 'node:v8'
import { runInNewContext } from 'node:vm'
import { parentPort, workerData } from 'node:worker_threads'
import { gzipSync } from 'node:zlib'

const level = workerData.level

// gzipSync leaves its output pieces and zlib state as garbage outside this thread's tiny heap; V8
// would let tens of MiB of them pile up before collecting. A collection of this heap after each block
// takes well under a millisecond (a block takes tens to compress). Same trick as archive/memoryGovernor.ts.
let collect
try {
  v8.setFlagsFromString('--expose-gc')
  collect = runInNewContext('gc')
} catch {
  collect = undefined
}

parentPort.on('message', (message) => {
  const member = gzipSync(new Uint8Array(message.block, 0, message.length), { level })
  // The member's bytes move to the main thread without a copy when gzipSync's Buffer owns its
  // ArrayBuffer; a small one may sit in Node's shared pool and is copied into its own first.
  const own = member.byteOffset === 0 && member.byteLength === member.buffer.byteLength ? member : new Uint8Array(member)
  // The block goes back too, to be refilled: a dead 1 MiB ArrayBuffer left here would only be freed by
  // this thread's garbage collector, which lets tens of MiB of them pile up first.
  parentPort.postMessage({ id: message.id, member: own.buffer, length: own.byteLength, block: message.block }, [own.buffer, message.block])
  collect?.({ type: 'major' })
})
