/**
 * @module tar/forEachTarEntry
 * Walks a tar stream one entry at a time: restores (`restore/extractTo`, `restoreDatabases`), verify of a
 * snapshot without a manifest, restic's tar re-packed (`repository/restic/resticTar`).
 *
 * Our own reader (`tarHeader.ts`), not tar-stream's: tar-stream decodes PAX names as UTF-8, so a name that
 * is not UTF-8 (legal on Linux) came back with U+FFFD and could not be restored byte-exact (issue 37).
 * Here names stay bytes until `byteNames.decodeName`. Bodies come as Node streams with backpressure: the
 * archive is read only as fast as the handler consumes an entry.
 */
import { Readable } from 'node:stream'
import { entryHeader, isZeroBlock, paddingOf, parseHeader, parsePax, tarBlock, TarFormatError, type HeaderOverrides, type TarEntryHeader } from './tarHeader.js'

export type { TarEntryHeader }
export { TarFormatError }

/** An entry's body. Always has an 'error' listener: an unread failure never becomes an uncaught event. */
export type TarEntryStream = Readable

const empty = Buffer.alloc(0)

/** Reads an async byte source in pieces of the sizes asked for; remembers a failure and gives it again. */
class ByteReader {
  private readonly iterator: AsyncIterator<Buffer | Uint8Array | string>
  private chunk: Buffer = empty
  private at = 0
  private ended = false
  private failure: unknown

  constructor(source: AsyncIterable<Buffer | Uint8Array | string>) {
    this.iterator = source[Symbol.asyncIterator]()
  }

  /** At least one and at most `max` bytes (a view of the current chunk), or undefined at the end. */
  async some(max: number): Promise<Buffer | undefined> {
    while (this.at === this.chunk.length) {
      if (this.failure !== undefined) throw this.failure
      if (this.ended) return undefined
      let next: IteratorResult<Buffer | Uint8Array | string>
      try {
        next = await this.iterator.next()
      } catch (err) {
        this.failure = err
        throw err
      }
      if (next.done) {
        this.ended = true
        return undefined
      }
      const value = next.value
      this.chunk = typeof value === 'string' ? Buffer.from(value) : Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.length)
      this.at = 0
    }
    const n = Math.min(max, this.chunk.length - this.at)
    const out = this.chunk.subarray(this.at, this.at + n)
    this.at += n
    return out
  }

  /** Exactly `n` bytes, or fewer when the source ends first. */
  async exactly(n: number): Promise<Buffer> {
    const first = await this.some(n)
    if (!first || first.length === n) return first ?? empty
    const parts = [first]
    let have = first.length
    while (have < n) {
      const part = await this.some(n - have)
      if (!part) break
      parts.push(part)
      have += part.length
    }
    return Buffer.concat(parts, have)
  }

  /** Skips `n` bytes; returns how many there were. */
  async skip(n: number): Promise<number> {
    let left = n
    while (left > 0) {
      const part = await this.some(left)
      if (!part) break
      left -= part.length
    }
    return n - left
  }

  /** Reads the source to its end (what follows the end blocks: GNU tar pads to 10 KiB). */
  async drain(): Promise<void> {
    while (await this.some(1 << 20));
  }
}

/**
 * Calls `handle` for every entry in order; `handle` reads (or ignores) the entry's stream before its promise
 * settles: what it left unread is skipped. Or, instead of the stream, `whole()`: the body in one buffer,
 * read without a stream's machinery (a million small files cost their entries' JavaScript: issue 42).
 * Resolves when the archive ends (its end blocks, then the rest of the stream read), or at once when
 * `handle` resolves with `'stop'` (the archive is destroyed unread: a reader that has what it wanted).
 * A rejected `handle` stops the walk, destroys the archive and rejects with `mapError(err)`.
 */
export async function forEachTarEntry(
  archive: Readable,
  handle: (header: TarEntryHeader, entry: TarEntryStream, whole: () => Promise<Buffer>) => Promise<void | 'stop'>,
  mapError: (err: Error) => Error = (err) => err,
): Promise<void> {
  const reader = new ByteReader(archive)
  let global: HeaderOverrides = {}
  let local: HeaderOverrides = {}
  try {
    for (;;) {
      const block = await reader.exactly(tarBlock)
      // No end blocks (a writer that stopped at an entry's end): what is there is the archive.
      if (block.length === 0) return
      if (block.length < tarBlock) throw new TarFormatError('the archive ends inside a header (truncated)')
      if (isZeroBlock(block)) {
        await reader.drain()
        return
      }
      const raw = parseHeader(block)
      const bodySize = local.size ?? global.size ?? raw.size
      if (raw.type === 'pax-header' || raw.type === 'pax-global-header' || raw.type === 'gnu-long-path' || raw.type === 'gnu-long-link-path') {
        const body = await reader.exactly(raw.size)
        if (body.length < raw.size) throw new TarFormatError('the archive ends inside an extended header (truncated)')
        await reader.skip(paddingOf(raw.size))
        if (raw.type === 'pax-header') parsePax(body, local)
        else if (raw.type === 'pax-global-header') global = parsePax(body, { ...global })
        else {
          const end = body.indexOf(0)
          const value = Buffer.from(end === -1 ? body : body.subarray(0, end))
          if (raw.type === 'gnu-long-path') local.path = value
          else local.linkpath = value
        }
        continue
      }
      const header = entryHeader(raw, { ...global, ...local })
      local = {}
      const body = entryBody(reader, header.name, bodySize)
      if ((await handle(header, body.stream, body.whole)) === 'stop') {
        body.stream.destroy()
        archive.destroy()
        return
      }
      await body.finish()
    }
  } catch (err) {
    archive.destroy()
    throw mapError(err as Error)
  }
}

/** An entry's body as a stream pulling from `reader`, and how the walk skips what the handler left. */
function entryBody(reader: ByteReader, name: string, size: number): { stream: Readable; whole(): Promise<Buffer>; finish(): Promise<void> } {
  let left = size
  let reading: Promise<void> | undefined
  const stream = new Readable({
    highWaterMark: 256 * 1024,
    read() {
      if (reading) return
      reading = (async () => {
        try {
          while (left > 0) {
            const chunk = await reader.some(Math.min(left, 1 << 20))
            if (!chunk) throw new TarFormatError(`the archive ends inside entry "${name}" (truncated)`)
            left -= chunk.length
            if (!stream.push(chunk)) return
          }
          stream.push(null)
        } catch (err) {
          stream.destroy(err as Error)
        } finally {
          reading = undefined
        }
      })()
    },
  })
  stream.on('error', () => {})
  return {
    stream,
    async whole() {
      if (left !== size || reading) throw new Error(`entry "${name}": its body was already read as a stream`)
      const body = await reader.exactly(size)
      left = size - body.length
      if (left > 0) throw new TarFormatError(`the archive ends inside entry "${name}" (truncated)`)
      return body
    },
    async finish() {
      await reading
      if (!stream.destroyed) stream.destroy()
      if (left > 0 && (await reader.skip(left)) < left) throw new TarFormatError(`the archive ends inside entry "${name}" (truncated)`)
      left = 0
      await reader.skip(paddingOf(size))
    },
  }
}
