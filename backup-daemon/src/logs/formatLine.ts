/**
 * @module logs/formatLine
 * The rendered log line: `<RFC 3339 time> <LEVEL> <message>`, the level coloured with ANSI codes
 * (the spec keeps them in `line`; the web UI renders them, a terminal shows them as is).
 */

export type LogLevel = 'info' | 'warn' | 'error'

const colours: Record<LogLevel, string> = { info: '\x1b[32m', warn: '\x1b[33m', error: '\x1b[31m' }
const reset = '\x1b[0m'

export function formatLine(level: LogLevel, message: string, now = new Date()): string {
  return `${now.toISOString()} ${colours[level]}${level.toUpperCase().padEnd(5)}${reset} ${message}`
}

/** Removes ANSI escape sequences (for plain-text output). */
export function stripAnsi(line: string): string {
  // eslint-disable-next-line no-control-regex
  return line.replace(/\x1b\[[0-9;]*m/g, '')
}
