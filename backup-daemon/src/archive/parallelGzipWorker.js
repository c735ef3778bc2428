/**
 * @module archive/parallelGzipWorker
 * The worker thread behind `archive/parallelGzip.ts`: compresses each block it is sent into one
 * complete gzip member and sends it back with its id. Plain JavaScript on purpose: it is loaded by
 * `new Worker(url)` both under tsx (tests) and from the esbuild bundle (whose `import.meta.url` points
 * at the source folder, where this file sits), with no loader needed in either case.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { gzipSync } from 'node:zlib'

const level = workerData.level

parentPort.on('message', (message) => {
  const member = gzipSync(new Uint8Array(message.block, 0, message.length), { level })
  // The member's bytes move to the main thread without a copy when gzipSync's Buffer owns its
  // ArrayBuffer; a small one may sit in Node's shared pool and is copied into its own first.
  const own = member.byteOffset === 0 && member.byteLength === member.buffer.byteLength ? member : new Uint8Array(member)
  parentPort.postMessage({ id: message.id, member: own.buffer, length: own.byteLength }, [own.buffer])
})
