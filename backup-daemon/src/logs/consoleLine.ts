/**
 * @module logs/consoleLine
 * A log line as the daemon prints it on stdout/stderr (what `journalctl -u backup-daemon` shows). Under
 * systemd with its output connected to the journal (`JOURNAL_STREAM` set), the journal stamps the time
 * itself and reads the level from a `<N>` prefix (sd-daemon(3): 3 error, 4 warning, 6 info), so the line
 * is `<6>[site] run started (schedule)`; elsewhere it is the log's own line, with its colours only on a
 * terminal (or `FORCE_COLOR`; `NO_COLOR` wins), never in a pipe or a file.
 */
import { stripAnsi } from './formatLine.js'

export interface ConsoleTarget {
  /** stdout/stderr go to the journal (`JOURNAL_STREAM` is set). */
  journal: boolean
  /** Keep the ANSI colours (a terminal). */
  colour: boolean
}

/** `<time> <LEVEL> <message>` as `formatLine` makes it; the level may be coloured. */
// eslint-disable-next-line no-control-regex
const shape = /^(\S+) (?:\x1b\[\d+m)?(INFO|WARN|ERROR)\s*(?:\x1b\[0m)? (.*)$/s

const priority: Record<string, number> = { INFO: 6, WARN: 4, ERROR: 3 }

/** Where this process's output goes, from its environment. */
export function consoleTarget(stream: { isTTY?: boolean } = process.stdout, env: NodeJS.ProcessEnv = process.env): ConsoleTarget {
  return { journal: Boolean(env.JOURNAL_STREAM), colour: (Boolean(stream.isTTY) || Boolean(env.FORCE_COLOR)) && !env.NO_COLOR }
}

/** `line` (a formatted log line) for `target`, and whether it is a warning or an error (for stderr). */
export function consoleLine(line: string, target: ConsoleTarget): { text: string; problem: boolean } {
  const match = shape.exec(line)
  const level = match?.[2] ?? 'INFO'
  const problem = level !== 'INFO'
  if (target.journal) return { text: `<${priority[level]}>${stripAnsi(match ? match[3]! : line)}`, problem }
  return { text: target.colour ? line : stripAnsi(line), problem }
}
