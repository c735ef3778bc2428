/**
 * @module cli/terminal/Reporter
 * Everything `run`, `verify` and `restore` print goes through one `Reporter`, built for the output mode
 * (`outputMode.ts`): job-log lines, the command's own messages, progress snapshots and the final
 * history record. On a terminal the live line is cleared before anything is printed and drawn again
 * after, so log lines scroll above it and never mix with it.
 */
import type { RunRecord } from '../../runs/history.js'
import type { RunProgress } from '../../runs/progress.js'
import { formatLine, stripAnsi, type LogLevel } from '../../logs/formatLine.js'
import { formatBytes } from '../../ui/lib/formatBytes.js'
import { formatMs } from '../../ui/lib/formatMs.js'
import { formatProgress } from './formatProgress.js'
import type { OutputMode } from './outputMode.js'

export interface Reporter {
  /** A job-log line as the engine renders it (`<time> <LEVEL> <message>`, the level coloured). */
  logLine(line: string): void
  /** A message of the command itself; `error` goes to stderr (JSON: a log object on stdout). */
  message(level: LogLevel, text: string): void
  progress(progress: RunProgress): void
  /** The run's or task's history record, once it has ended. */
  summary(record: RunRecord): void
  /** Clears the live line (a terminal); call before exiting. */
  close(): void
}

export interface ReporterStreams {
  stdout: NodeJS.WritableStream
  stderr: NodeJS.WritableStream
  /** @default Date.now */
  now?: () => number
}

const linePattern = /^(\S+) (INFO|WARN|ERROR) +([\s\S]*)$/

/** Time, level and message of an engine log line (for JSON and for `--quiet`). */
export function parseLogLine(line: string): { time: string; level: LogLevel; message: string } {
  const plain = stripAnsi(line)
  const match = linePattern.exec(plain)
  if (!match) return { time: new Date().toISOString(), level: 'info', message: plain }
  return { time: match[1]!, level: match[2]!.toLowerCase() as LogLevel, message: match[3]! }
}

/** One human line for the end of a run or task: what it did and how fast. */
export function describeRecord(record: RunRecord): string {
  const rate = record.durationMs > 0 ? `, ${formatBytes((record.bytesRead * 1000) / record.durationMs)}/s` : ''
  const written = record.bytesWritten > 0 ? `, ${formatBytes(record.bytesWritten)} written` : ''
  const what = `${record.kind} ${record.result} in ${formatMs(record.durationMs)}: ${formatBytes(record.bytesRead)} read${written}${rate}`
  return record.snapshot ? `${what} (${record.snapshot})` : what
}

export function createReporter(mode: OutputMode, streams: ReporterStreams = { stdout: process.stdout, stderr: process.stderr }): Reporter {
  const { stdout, stderr } = streams
  const now = streams.now ?? Date.now
  const paint = (text: string) => (mode.colour ? text : stripAnsi(text))
  const ownLine = (level: LogLevel, text: string) => paint(formatLine(level, text))

  if (mode.kind === 'json') {
    const emit = (object: object) => stdout.write(`${JSON.stringify(object)}\n`)
    return {
      logLine: (line) => emit({ type: 'log', ...parseLogLine(line) }),
      message: (level, text) => emit({ type: 'log', time: new Date(now()).toISOString(), level, message: text }),
      progress: (progress) => emit({ type: 'progress', ...progress }),
      summary: (record) => emit({ type: 'summary', ...record }),
      close: () => {},
    }
  }

  if (mode.kind === 'quiet') {
    return {
      logLine: (line) => {
        if (parseLogLine(line).level === 'error') stderr.write(`${paint(line)}\n`)
      },
      message: (level, text) => {
        if (level === 'error') stderr.write(`${ownLine(level, text)}\n`)
      },
      progress: () => {},
      summary: () => {},
      close: () => {},
    }
  }

  if (mode.kind === 'plain') {
    let lastProgress = now()
    return {
      logLine: (line) => stdout.write(`${paint(line)}\n`),
      message: (level, text) => (level === 'error' ? stderr : stdout).write(`${ownLine(level, text)}\n`),
      progress: (progress) => {
        if (now() - lastProgress < mode.progressIntervalMs) return
        lastProgress = now()
        stdout.write(`${ownLine('info', `progress: ${formatProgress(progress)}`)}\n`)
      },
      summary: (record) =>
        (record.result === 'success' ? stdout : stderr).write(`${ownLine(record.result === 'success' ? 'info' : 'error', describeRecord(record))}\n`),
      close: () => {},
    }
  }

  // A terminal: one live line at the bottom, redrawn in place (carriage return, erase line).
  let drawn = ''
  const clear = () => {
    if (drawn) stdout.write('\r\x1b[2K')
  }
  const draw = () => {
    if (drawn) stdout.write(drawn)
  }
  const above = (stream: NodeJS.WritableStream, text: string) => {
    clear()
    stream.write(`${text}\n`)
    draw()
  }
  return {
    logLine: (line) => above(stdout, paint(line)),
    message: (level, text) => above(level === 'error' ? stderr : stdout, ownLine(level, text)),
    progress: (progress) => {
      // One column spare: writing the last column makes some terminals wrap, and `\r` would then redraw a line too low.
      // Read at each redraw: the operator may resize the window while it runs.
      const columns = (stdout as Partial<NodeJS.WriteStream>).columns || mode.columns
      const line = formatProgress(progress, Math.max(20, columns - 1))
      clear()
      drawn = mode.colour ? line.replace(/^(\S+)/, '\x1b[36m$1\x1b[0m') : line
      stdout.write(drawn)
    },
    summary: (record) => above(record.result === 'success' ? stdout : stderr, ownLine(record.result === 'success' ? 'info' : 'error', describeRecord(record))),
    close: () => {
      clear()
      drawn = ''
    },
  }
}
