/**
 * @module ui/app/log/LogBuffer
 * The lines a log viewer holds: at most `capacity` (the API's tail maximum), oldest dropped first.
 * Keeps a lower-cased, ANSI-stripped copy of each line so search over 50,000 lines is one pass of
 * `includes`, with no regex per keystroke.
 */
import { stripAnsi } from '../../lib/ansiToHtml.js'

export class LogBuffer {
  lines: string[] = []
  private plain: string[] = []

  constructor(readonly capacity = 50_000) {}

  get length(): number {
    return this.lines.length
  }

  clear(): void {
    this.lines = []
    this.plain = []
  }

  push(newLines: string[]): void {
    for (const line of newLines) {
      this.lines.push(line)
      this.plain.push(stripAnsi(line).toLowerCase())
    }
    const excess = this.lines.length - this.capacity
    if (excess > 0) {
      this.lines.splice(0, excess)
      this.plain.splice(0, excess)
    }
  }

  /** Indexes of the lines containing `query` (case-insensitive, ANSI ignored). */
  search(query: string): number[] {
    const needle = query.toLowerCase()
    if (!needle) return []
    const found: number[] = []
    for (let i = 0; i < this.plain.length; i++) if (this.plain[i]!.includes(needle)) found.push(i)
    return found
  }

  /** The whole log as plain text, for the clipboard. */
  text(): string {
    return this.lines.map(stripAnsi).join('\n')
  }
}
