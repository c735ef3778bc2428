/**
 * @module restore/smallFileWorker
 * The worker thread behind `restore/smallFileWriter.ts`: writes each batch of small files it is sent
 * (`smallFileWrites.js`) and answers with the batch's id and the first failure, if any; after a failure
 * it writes nothing more. Plain JavaScript on purpose, as `archive/parallelGzipWorker.js`: loaded by
 * `new Worker(url)` under tsx and from the esbuild bundle alike.
 */
import { parentPort } from 'node:worker_threads'
import { writeBatch } from './smallFileWrites.js'

let failed = false

parentPort.on('message', (batch) => {
  const failure = failed ? undefined : writeBatch(batch)
  if (failure) failed = true
  parentPort.postMessage({ id: batch.id, failure })
})
