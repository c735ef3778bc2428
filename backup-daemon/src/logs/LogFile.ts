/**
 * @module logs/LogFile
 * One log kept in memory (the newest `limit` lines) and in a file, appended line by line and
 * rewritten with only the kept lines once it holds twice as many, so it never grows without bound.
 */
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs'
import { dirname } from 'node:path'

export class LogFile {
  private lines: string[] = []
  private linesInFile = 0
  private fd: number | undefined

  constructor(
    private readonly path: string | undefined,
    private readonly limit: number,
  ) {
    if (!path) return
    mkdirSync(dirname(path), { recursive: true })
    try {
      const existing = readFileSync(path, 'utf8').split('\n')
      if (existing[existing.length - 1] === '') existing.pop()
      this.linesInFile = existing.length
      this.lines = existing.slice(-limit)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
    }
    this.fd = openSync(path, 'a')
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
    // Synchronous so lines land in order and survive a crash right after; log volume is small.
    writeSync(this.fd, line + '\n')
    this.linesInFile += 1
    if (this.linesInFile > this.limit * 2) this.rewrite()
  }

  private rewrite(): void {
    if (!this.path || this.fd === undefined) return
    const kept = this.tail(this.limit)
    const temp = `${this.path}.tmp`
    writeFileSync(temp, kept.length ? kept.join('\n') + '\n' : '')
    closeSync(this.fd)
    renameSync(temp, this.path)
    this.fd = openSync(this.path, 'a')
    this.linesInFile = kept.length
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
  }
}
