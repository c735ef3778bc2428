/**
 * @module logs/LogFile
 * One log kept in memory (the newest `limit` lines, what the API's `tail` reads) and in a file that
 * is appended line by line and rotated like the original service's logs (lumberjack's rules): once the
 * file reaches `maxBytes` it is renamed `<stem>-<UTC time>.log` and a new one is started; rotated
 * files are gzipped (`compress`) and pruned by count (`maxBackups`) and age (`maxAgeDays`, from the
 * time in their name) in the background, off the appending path. Files are created 0600, folders 0700
 * (logs may quote paths and errors), and hold plain text: a line's ANSI colours stay in memory (the API's
 * lines carry them) and never reach the file.
 */
import { closeSync, createReadStream, createWriteStream, existsSync, fstatSync, mkdirSync, openSync, readSync, renameSync, writeSync } from 'node:fs'
import { readdir, rename, rm } from 'node:fs/promises'
import { basename, dirname, extname, join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { createGzip } from 'node:zlib'
import { stripAnsi } from './formatLine.js'

export interface RotationOptions {
  /** Rotate once the file holds this many bytes; 0 = never by size. */
  maxBytes: number
  /** Rotated files kept; 0 = all. */
  maxBackups: number
  /** Rotated files older than this are deleted; 0 = never by age. */
  maxAgeDays: number
  /** gzip rotated files. */
  compress: boolean
}

export const defaultRotation: RotationOptions = { maxBytes: 100 * 1048576, maxBackups: 7, maxAgeDays: 30, compress: true }

/** The newest bytes read back on start: enough for the in-memory tail without reading a 100 MiB file. */
const tailBytesOnStart = 8 * 1048576
const day = 86_400_000

/** `2026-11-23T21-45-19.123`: the UTC time of a rotation, as lumberjack writes it (sorts as text). */
function stamp(date: Date): string {
  return date.toISOString().replace(/:/g, '-').replace(/Z$/, '')
}

function parseStamp(text: string): number | undefined {
  const match = /^(\d{4}-\d\d-\d\dT\d\d)-(\d\d)-(\d\d\.\d{3})$/.exec(text)
  if (!match) return undefined
  const time = Date.parse(`${match[1]}:${match[2]}:${match[3]}Z`)
  return Number.isNaN(time) ? undefined : time
}

export class LogFile {
  private lines: string[] = []
  private fd: number | undefined
  private size = 0
  /** Background work (gzip, pruning), one after the other. */
  private mill: Promise<void> = Promise.resolve()
  private readonly rotation: RotationOptions
  /** The time (ms) the last rotation's name carries. */
  private lastRotation = 0

  constructor(
    private readonly path: string | undefined,
    private readonly limit: number,
    rotation: Partial<RotationOptions> = {},
    /** Where background failures go (never thrown: logging must not stop the daemon). */
    private readonly onError: (message: string) => void = () => undefined,
  ) {
    this.rotation = { ...defaultRotation, ...rotation }
    if (!path) return
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
    this.fd = openSync(path, 'a', 0o600)
    this.size = fstatSync(this.fd).size
    this.lines = this.readTail()
    this.schedule()
  }

  /** The newest `count` lines, oldest first. */
  tail(count: number): string[] {
    const n = Math.min(count, this.limit, this.lines.length)
    return n > 0 ? this.lines.slice(-n) : []
  }

  append(line: string): void {
    this.lines.push(line)
    // Trim in batches so appending stays cheap when the log is full.
    if (this.lines.length > this.limit + Math.max(16, this.limit >> 3)) this.lines.splice(0, this.lines.length - this.limit)
    if (this.fd === undefined || !this.path) return
    // The file holds plain text (read with less, grep, a log shipper); the colours stay in memory for the API.
    const bytes = Buffer.from(stripAnsi(line) + '\n')
    if (this.rotation.maxBytes > 0 && this.size > 0 && this.size + bytes.length > this.rotation.maxBytes) this.rotate()
    // Synchronous so lines land in order and survive a crash right after; log volume is small.
    writeSync(this.fd, bytes)
    this.size += bytes.length
  }

  /** Resolves when the background work queued so far (gzip, pruning) is done. */
  settled(): Promise<void> {
    return this.mill
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
  }

  /** The file's newest lines (its last few MiB), for the in-memory tail after a restart. */
  private readTail(): string[] {
    if (this.fd === undefined || !this.path || this.size === 0) return []
    const length = Math.min(this.size, tailBytesOnStart)
    const buffer = Buffer.alloc(length)
    // The appending descriptor is write-only.
    const reader = openSync(this.path, 'r')
    try {
      readSync(reader, buffer, 0, length, this.size - length)
    } finally {
      closeSync(reader)
    }
    const lines = buffer.toString('utf8').split('\n')
    if (lines[lines.length - 1] === '') lines.pop()
    // A read that starts mid-file starts mid-line: drop that partial line.
    if (length < this.size) lines.shift()
    return lines.slice(-this.limit)
  }

  private rotate(): void {
    if (!this.path || this.fd === undefined) return
    closeSync(this.fd)
    const ext = extname(this.path)
    const stem = this.path.slice(0, this.path.length - ext.length)
    // Each rotation's time is later than the last one's, so the names sort in rotation order even when two
    // rotations fall in one millisecond (tiny maxBytes in tests), or the clock steps back; a name already
    // taken (a file of an earlier process) moves it on again: a backup is never overwritten.
    let time = Math.max(Date.now(), this.lastRotation + 1)
    const nameAt = (at: number) => `${stem}-${stamp(new Date(at))}${ext}`
    while (existsSync(nameAt(time)) || existsSync(`${nameAt(time)}.gz`)) time += 1
    this.lastRotation = time
    const target = nameAt(time)
    renameSync(this.path, target)
    this.fd = openSync(this.path, 'a', 0o600)
    this.size = 0
    this.schedule()
  }

  private schedule(): void {
    this.mill = this.mill.then(() => this.millOnce()).catch((err: unknown) => this.onError(`log rotation of ${this.path}: ${(err as Error).message}`))
  }

  /** Compresses rotated files and prunes them by count and age (lumberjack's "mill"). */
  private async millOnce(): Promise<void> {
    if (!this.path) return
    const folder = dirname(this.path)
    const ext = extname(this.path)
    const prefix = `${basename(this.path, ext)}-`
    /** Rotations by time; `gz` when its compressed file exists, `plain` when the uncompressed one does. */
    const rotations = new Map<number, { plain?: string; gz?: string }>()
    for (const name of await readdir(folder)) {
      if (!name.startsWith(prefix)) continue
      // A gzip interrupted by a crash: the uncompressed file is still there, start again.
      if (name.endsWith('.gz.tmp')) {
        await rm(join(folder, name), { force: true })
        continue
      }
      const rest = name.slice(prefix.length)
      const gz = rest.endsWith(`${ext}.gz`)
      const plain = gz ? rest.slice(0, -(ext.length + 3)) : rest.endsWith(ext) ? rest.slice(0, -ext.length) : undefined
      const time = plain === undefined ? undefined : parseStamp(plain)
      if (time === undefined) continue
      const entry = rotations.get(time) ?? {}
      entry[gz ? 'gz' : 'plain'] = name
      rotations.set(time, entry)
    }
    const { maxBackups, maxAgeDays, compress } = this.rotation
    const cutoff = maxAgeDays > 0 ? Date.now() - maxAgeDays * day : -Infinity
    const newestFirst = [...rotations.entries()].sort((a, b) => b[0] - a[0])
    const toCompress: string[] = []
    for (const [index, [time, { plain, gz }]] of newestFirst.entries()) {
      const drop = time < cutoff || (maxBackups > 0 && index >= maxBackups)
      // Both files of one rotation: the gzip finished (it is renamed into place last), the plain one was not removed yet.
      if (plain && (drop || gz)) await rm(join(folder, plain), { force: true })
      if (gz && drop) await rm(join(folder, gz), { force: true })
      if (!drop && plain && !gz) toCompress.push(plain)
    }
    if (!compress) return
    for (const name of toCompress) {
      const source = join(folder, name)
      const temp = `${source}.gz.tmp`
      await pipeline(createReadStream(source), createGzip(), createWriteStream(temp, { mode: 0o600 }))
      await rename(temp, `${source}.gz`)
      await rm(source, { force: true })
    }
  }
}
