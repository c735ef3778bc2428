/**
 * @module archive/parallelGzipWorker
 * The worker thread behind `archive/parallelGzip.ts`: compresses each block it is sent into one
 * complete gzip member and sends it back with its id. Plain JavaScript on purpose: it is loaded by
 * `new Worker(url)` both under tsx (tests) and from the esbuild bundle (whose `import.meta.url` points
 * at the source folder, where this file sits), with no loader needed in either case.
 *
 * Incompressible stretches are stored, not searched. At level 6 zlib spends ~40 ns a byte on random-looking
 * bytes (media files, archives, encrypted data: 25 MiB/s a core here, measured) and then emits them
 * stored anyway; copying them into stored blocks runs at ~650 MiB/s. So a block is cut into 16 KiB
 * pieces, each piece's order-0 entropy is estimated from a sample (~1% of level 6's time), and runs of
 * pieces at 7.99 bits a byte or more become stored blocks, the other runs deflate blocks at the job's
 * level. Each run ends with a sync flush (byte-aligned, no final bit), as pigz joins its blocks, and an
 * empty final block closes the member: one valid gzip member whatever the mix. A block with no such
 * piece is compressed as before, in one `gzipSync`.
 */
import v8 from 'node:v8'
import { runInNewContext } from 'node:vm'
import { parentPort, workerData } from 'node:worker_threads'
import { constants, crc32, deflateRawSync, gzipSync } from 'node:zlib'

const level = workerData.level

// gzipSync leaves its output pieces and zlib state as garbage outside this thread's tiny heap; V8
// would let tens of MiB of them pile up before collecting. A minor collection (a scavenge, where those
// short-lived Buffers die) of this heap after each block takes well under a millisecond (a block takes
// tens to compress). Same trick as archive/memoryGovernor.ts, and minor for the same reason: Node 20's
// V8 read `{ type: 'major' }` as a scavenge anyway, Node 24's runs a full mark-compact (parallel marking
// on the platform threads) per block. Measured on 520 MiB of the throughput bench's tree, 2 threads: the
// process's CPU time on Node 24 was 22.5 s with 'major' against 18.8 s with 'minor' (Node 20: 17.7 s and
// 18.1 s), which made `tar.gz` 0.76x the pigz pipeline on Node 24 against 0.98x on Node 20 (issue 27).
let collect
try {
  v8.setFlagsFromString('--expose-gc')
  collect = runInNewContext('gc')
} catch {
  collect = undefined
}

/** Bytes whose entropy is estimated together: the grain of the stored/deflated choice. */
const pieceSize = 16 * 1024
/**
 * Estimated order-0 entropy (bits a byte) from which a piece is stored. Measured on 16 KiB pieces:
 * random bytes estimate 7.99 or more; text 4 to 6; of real media (PNG, JPEG, zip, gzip, woff2), the
 * pieces at 7.99 or more deflate to 0.996 of their size at level 6 (the lower ones to 0.93-0.98: LZ
 * matches, which a byte count cannot see, still pay there), so storing them costs ~0.4% of their size
 * for about a 15th of the time. A piece of repeated random-looking bytes would be stored though deflate
 * could have shortened it: a loss bounded by that piece, never a wrong byte.
 */
const storedFrom = 7.99
/** A first, coarser estimate under which a piece is deflated at once (text and most data end here). */
const surelyCompressible = 7.9

const counts = new Int32Array(256)

/**
 * The byte entropy of the piece `words[start, end)` estimated from one 4-byte word in every `step`
 * (all four byte positions of a word alike, so 32-bit columns do not skew it), with the Miller-Madow
 * correction: a sample of n counts low by (values seen - 1) / (2 n ln 2) bits.
 */
function entropy(words, start, end, step) {
  counts.fill(0)
  let n = 0
  for (let i = start; i < end; i += step) {
    const word = words[i]
    counts[word & 255]++
    counts[(word >>> 8) & 255]++
    counts[(word >>> 16) & 255]++
    counts[word >>> 24]++
    n += 4
  }
  if (n === 0) return 0
  let bits = 0
  let seen = 0
  for (let c = 0; c < 256; c++) {
    const k = counts[c]
    if (k !== 0) {
      bits -= k * Math.log2(k / n)
      seen++
    }
  }
  return bits / n + (seen - 1) / (2 * n * Math.LN2)
}

/**
 * Whether a piece looks random: a quick estimate from 1/16 of its bytes rules out text and most data;
 * the rest are estimated from half their bytes (8192 of 16 KiB: random pieces then all reach 7.99).
 */
function incompressible(words, start, end) {
  return entropy(words, start, end, 16) >= surelyCompressible && entropy(words, start, end, 2) >= storedFrom
}

/** gzip header as Node's zlib writes it: deflate, no flags, no time, no extra flags, OS Unix. */
const header = Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0x03])
/** An empty final block with fixed codes (bits 1, 01, then the 7-bit end code): 03 00, as zlib ends. */
const finalBlock = Buffer.from([0x03, 0x00])

/**
 * One gzip member for `block`, and how many of its bytes were stored. Runs of incompressible pieces are
 * stored (level 0), the other runs deflated at `level`; both end on a sync flush, so they join.
 */
function member(block) {
  // Blocks arrive in ArrayBuffers of their own (offset 0): word-aligned. A tail under 4 bytes is not sampled.
  const words = new Uint32Array(block.buffer, block.byteOffset, block.length >>> 2)
  const runs = []
  let start = 0
  let storing = false
  for (let offset = 0; offset < block.length; offset += pieceSize) {
    const store = incompressible(words, offset >>> 2, Math.min(offset + pieceSize, block.length) >>> 2)
    if (offset > 0 && store !== storing) {
      runs.push({ start, end: offset, store: storing })
      start = offset
    }
    storing = store
  }
  runs.push({ start, end: block.length, store: storing })
  if (runs.length === 1 && !storing) return { member: gzipSync(block, { level }), stored: 0 }
  const parts = [header]
  let stored = 0
  for (const run of runs) {
    const bytes = block.subarray(run.start, run.end)
    parts.push(deflateRawSync(bytes, { level: run.store ? 0 : level, finishFlush: constants.Z_SYNC_FLUSH }))
    if (run.store) stored += bytes.length
  }
  const trailer = Buffer.allocUnsafe(8)
  trailer.writeUInt32LE(crc32(block), 0)
  trailer.writeUInt32LE(block.length >>> 0, 4)
  parts.push(finalBlock, trailer)
  return { member: Buffer.concat(parts), stored }
}

parentPort.on('message', (message) => {
  // The pool is done: close the port and let the thread end on its own (see Pool.close).
  if (message === 'close') {
    parentPort.close()
    return
  }
  const { member: bytes, stored } = member(new Uint8Array(message.block, 0, message.length))
  // The member's bytes move to the main thread without a copy when its Buffer owns its ArrayBuffer; a
  // small one may sit in Node's shared pool and is copied into its own first.
  const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes)
  // The block goes back too, to be refilled: a dead 1 MiB ArrayBuffer left here would only be freed by
  // this thread's garbage collector, which lets tens of MiB of them pile up first.
  parentPort.postMessage({ id: message.id, member: own.buffer, length: own.byteLength, block: message.block, stored }, [own.buffer, message.block])
  collect?.({ type: 'minor' })
})
