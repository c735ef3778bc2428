/**
 * @module tar/tarWriter
 * A POSIX tar (ustar + PAX) writer that builds headers, small files' bytes and paddings straight into
 * large output chunks (256 KiB by default), so a tree of tiny files costs a few copies per file instead of
 * a stream hand-off per header, body and padding (tar-stream's pack: a streamx push and a callback each).
 *
 * Format, as tar-stream wrote it before (archives read by GNU tar, bsdtar and `archive/forEachTarEntry.ts`):
 * - a name over 100 bytes is split at a `/` into the ustar prefix (155) and name (100) fields;
 * - a name or link target that cannot be held (non-ASCII, too long) and a size of 8 GiB or more go into a
 *   PAX extended header (`x`) before the entry: `path`, `linkpath`, `size` (UTF-8, lengths in bytes);
 *   the size field then holds the size in base-256 as GNU tar does;
 * - uid and gid 0, no user or group names (a restore does not chown), mtime in whole seconds.
 *
 * The writer is synchronous and does no I/O: `take()` hands over the finished chunks, the caller decides
 * when to pass them on (and so keeps backpressure).
 *
 * With `record`, it also keeps every file entry's path, size and digest of the body bytes as written
 * (`tar/snapshotRecord.ts`): done here, where every byte of every path (batches, streams, the tar worker)
 * passes once, so no path can forget it. `takeRecorded()` hands them over as the record's own JSON
 * bytes (`recordText.ts`): one piece of memory per step moves from the tar worker, nothing per file, and
 * the main thread only appends it to the record's spool. Issue 25 allows the record < 5% of a backup's throughput.
 */
import { encodeName } from './byteNames.js'
import type { DigestKind } from './fileDigest.js'
import { RecordText } from './recordText.js'

export interface TarHeader {
  name: string
  type: 'file' | 'directory' | 'symlink'
  mode: number
  mtime: Date
  linkname?: string
}

const block = 512
/** The largest value an 11-digit octal field holds. */
const maxOctal11 = 0o77777777777
const typeFlags = { file: 0x30, directory: 0x35, symlink: 0x32 } as const
const ustarMagic = Buffer.from('ustar\u000000', 'latin1')
/** Stream chunks at least this large are handed on as they are instead of being copied. */
const passThroughSize = 64 * 1024

const isAscii = (text: string) => {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7e || text.charCodeAt(i) < 0x20) return false
  return true
}

export class TarWriter {
  private chunk: Buffer
  /** Start of the bytes of `chunk` not yet handed out, and the end of what is written. */
  private start = 0
  private offset = 0
  private ready: Buffer[] = []
  private readyLength = 0
  /** The record's items (none without `record`), and whether files from here on are recorded. */
  private readonly recorded: RecordText | undefined
  private recording: boolean

  /** `record`: the digest kept for every file entry from here on (none without it). */
  constructor(
    private readonly chunkSize = 256 * 1024,
    record?: DigestKind,
  ) {
    this.chunk = Buffer.allocUnsafe(chunkSize)
    this.recorded = record ? new RecordText(record) : undefined
    this.recording = Boolean(record)
  }

  /**
   * The file entries finished so far (each once; a file is finished by the next header, `stopRecording` or
   * `end`), as the record's JSON items joined by commas (`["path",size,"digest"],...`, UTF-8; empty for
   * none), in memory of their own (a worker transfers it).
   */
  takeRecorded(): Uint8Array {
    return this.recorded?.take() ?? new Uint8Array(0)
  }

  /** No more recording (the record entry itself is written after this). */
  stopRecording(): void {
    this.recorded?.end()
    this.recording = false
  }

  /** Bytes in finished chunks waiting for `take()`. */
  get pending(): number {
    return this.readyLength
  }

  /** The memory later writes go to: a chunk handed out as a view of it must be copied before it is moved to another thread. */
  get current(): ArrayBufferLike {
    return this.chunk.buffer
  }

  /** The finished chunks, in order (the caller owns them). */
  take(): Buffer[] {
    const out = this.ready
    this.ready = []
    this.readyLength = 0
    return out
  }

  /** A whole entry: header, a file's `data` and padding. */
  entry(header: TarHeader, data?: Buffer): void {
    this.header(header, data?.length ?? 0)
    if (data && data.length > 0) {
      this.write(data)
      this.pad(data.length)
    }
  }

  /** Header block(s) of an entry; a file's body of `size` bytes follows through `write` and `pad`. */
  header(header: TarHeader, fileSize = 0): void {
    const size = header.type === 'file' ? fileSize : 0
    this.recorded?.end()
    // Folders without a trailing '/', as tar-stream wrote them (readers compare names): the type flag says it.
    let name = header.name
    const linkname = header.type === 'symlink' ? (header.linkname ?? '') : ''
    let prefix = ''
    const pax: Buffer[] = []
    if (!isAscii(name)) {
      pax.push(paxRecord('path', name))
      name = 'PaxHeader'
    } else if (name.length > 100) {
      const split = splitName(name)
      if (split) {
        ;[prefix, name] = split
      } else {
        pax.push(paxRecord('path', name))
        name = name.slice(0, 100)
      }
    }
    let link = linkname
    if (linkname.length > 100 || !isAscii(linkname)) {
      pax.push(paxRecord('linkpath', linkname))
      link = ''
    }
    if (size > maxOctal11) pax.push(paxRecord('size', String(size)))
    // A time the octal field cannot hold (before 1970, after 2242) goes into PAX, as GNU tar writes it.
    const seconds = Math.floor(header.mtime.getTime() / 1000)
    if (Number.isFinite(seconds) && (seconds < 0 || seconds > maxOctal11)) pax.push(paxRecord('mtime', String(seconds)))
    if (pax.length > 0) {
      const body = Buffer.concat(pax)
      this.headerBlock('PaxHeader', '', 0x78, header.mode, header.mtime, body.length, '')
      this.write(body)
      this.pad(body.length)
    }
    this.headerBlock(name, prefix, typeFlags[header.type], header.mode, header.mtime, size, link)
    if (this.recording && header.type === 'file') this.recorded!.start(header.name, size)
  }

  /** Bytes of the current file's body: copied into the chunk, or handed on as they are when large. */
  write(data: Buffer): void {
    this.recorded?.update(data)
    if (data.length >= passThroughSize) {
      this.flush()
      this.ready.push(data)
      this.readyLength += data.length
      return
    }
    let done = 0
    while (done < data.length) {
      if (this.offset === this.chunkSize) this.nextChunk()
      const n = Math.min(data.length - done, this.chunkSize - this.offset)
      data.copy(this.chunk, this.offset, done, done + n)
      this.offset += n
      done += n
    }
  }

  /** Zeros up to the next 512-byte boundary after a body of `size` bytes. */
  pad(size: number): void {
    const rest = size % block
    if (rest) this.zeros(block - rest)
  }

  /** The end of the archive (two zero blocks); every chunk is then ready. */
  end(): void {
    this.recorded?.end()
    this.zeros(2 * block)
    this.flush()
  }

  /** Hands out what is written so far (a view of the current chunk; later writes go after it). */
  flush(): void {
    if (this.offset === this.start) return
    const part = this.chunk.subarray(this.start, this.offset)
    this.ready.push(part)
    this.readyLength += part.length
    this.start = this.offset
  }

  private nextChunk(): void {
    this.flush()
    this.chunk = Buffer.allocUnsafe(this.chunkSize)
    this.start = 0
    this.offset = 0
  }

  private zeros(count: number): void {
    while (count > 0) {
      if (this.offset === this.chunkSize) this.nextChunk()
      const n = Math.min(count, this.chunkSize - this.offset)
      this.chunk.fill(0, this.offset, this.offset + n)
      this.offset += n
      count -= n
    }
  }

  private headerBlock(name: string, prefix: string, typeFlag: number, mode: number, mtime: Date, size: number, linkname: string): void {
    // A header never straddles two chunks: its checksum is summed over one contiguous block.
    if (this.chunkSize - this.offset < block) this.nextChunk()
    const buf = this.chunk
    const at = this.offset
    // The constant fields (magic, zero ids, checksum as spaces) come from a template; their sum is known.
    template.copy(buf, at)
    let sum = templateSum + typeFlag
    sum += ascii(buf, at, name)
    sum += octal(buf, at + 100, 8, mode & 0o7777)
    if (size > maxOctal11) sum += base256(buf, at + 124, 12, size)
    else sum += octal(buf, at + 124, 12, size)
    const seconds = Math.floor(mtime.getTime() / 1000)
    sum += octal(buf, at + 136, 12, Number.isFinite(seconds) ? Math.min(Math.max(seconds, 0), maxOctal11) : 0)
    buf[at + 156] = typeFlag
    if (linkname) sum += ascii(buf, at + 157, linkname)
    if (prefix) sum += ascii(buf, at + 345, prefix)
    // Six digits, a NUL and a space, as GNU tar writes it.
    octal(buf, at + 148, 7, sum)
    buf[at + 155] = 0x20
    this.offset += block
  }
}

/** A zeroed header with the fields every entry shares; mode, size, mtime and names are written over it. */
const template = Buffer.alloc(block)
ustarMagic.copy(template, 257)
for (const at of [108, 116, 329, 337]) octal(template, at, 8, 0)
// Mode, size and mtime are zero-filled digits in every header: counted when written.
template.fill(0x20, 148, 156)
const templateSum = template.reduce((a, b) => a + b, 0)

/** Writes an ASCII `text` (checked by the caller, at most the field's width) at `at`; returns its byte sum. */
function ascii(buf: Buffer, at: number, text: string): number {
  let sum = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    buf[at + i] = c
    sum += c
  }
  return sum
}

/** `value` (< 8^(width-1)) in octal, zero-padded to `width - 1` digits and NUL-terminated; returns the byte sum. */
function octal(buf: Buffer, at: number, width: number, value: number): number {
  let sum = 0
  let rest = value
  for (let i = at + width - 2; i >= at; i--) {
    const digit = 0x30 + (rest % 8)
    buf[i] = digit
    sum += digit
    rest = Math.floor(rest / 8)
  }
  buf[at + width - 1] = 0
  return sum
}

/** GNU's base-256 number field: the high bit of the first byte set, the value big-endian in the rest. */
function base256(buf: Buffer, at: number, width: number, value: number): number {
  let sum = 0x80
  let rest = value
  for (let i = at + width - 1; i > at; i--) {
    buf[i] = rest % 256
    sum += buf[i]!
    rest = Math.floor(rest / 256)
  }
  buf[at] = 0x80
  return sum
}

/** `[prefix, name]` with the name in at most 100 bytes and the prefix in at most 155, split at a `/`. */
function splitName(path: string): [string, string] | undefined {
  // The name part must start after a '/' that leaves the prefix at 155 bytes or fewer.
  for (let i = path.indexOf('/'); i !== -1 && i <= 155; i = path.indexOf('/', i + 1)) {
    if (path.length - i - 1 <= 100 && i > 0 && path.length - i - 1 > 0) return [path.slice(0, i), path.slice(i + 1)]
  }
  return undefined
}

/**
 * One PAX record, `<length> <key>=<value>\n`, its length counting itself, in bytes. The value is the name's
 * bytes (`byteNames.encodeName`): UTF-8, or the very bytes of a name that is not (as GNU tar stores them).
 */
function paxRecord(key: string, value: string): Buffer {
  const bytes = encodeName(value)
  const body = bytes.length + key.length + 3
  let length = body + String(body).length
  if (String(length).length !== String(body).length) length = body + String(length).length
  return Buffer.concat([Buffer.from(`${length} ${key}=`, 'latin1'), bytes, Buffer.from('\n')])
}
