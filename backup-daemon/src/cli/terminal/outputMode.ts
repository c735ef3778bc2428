/**
 * @module cli/terminal/outputMode
 * How a command talks to its operator, decided once from the flags, the environment and stdout:
 * - `tty`: stdout is a terminal; one live progress line redrawn in place, log lines printed above it;
 * - `plain`: not a terminal (systemd, a pipe, CI); log lines, plus a progress line every
 *   `--progress-interval` seconds so a journal stays readable;
 * - `json`: `--json`, one JSON object per line (progress events, log lines, the final summary);
 * - `quiet`: `--quiet`, errors only.
 * Colour only on a terminal (or with FORCE_COLOR), never with `--no-color` or a non-empty NO_COLOR
 * (https://no-color.org).
 */

export type OutputKind = 'tty' | 'plain' | 'json' | 'quiet'

export interface OutputMode {
  kind: OutputKind
  colour: boolean
  /** Plain output: milliseconds between progress lines. */
  progressIntervalMs: number
  /** Terminal width (tty), so the live line never wraps. */
  columns: number
}

export interface OutputFlags {
  json?: boolean
  quiet?: boolean
  noColor?: boolean
  /** Seconds, as given. */
  progressInterval?: number
}

export const defaultProgressIntervalSeconds = 30

export function outputMode(flags: OutputFlags, stdout: NodeJS.WriteStream = process.stdout, env: NodeJS.ProcessEnv = process.env): OutputMode {
  const tty = Boolean(stdout.isTTY)
  const kind: OutputKind = flags.json ? 'json' : flags.quiet ? 'quiet' : tty ? 'tty' : 'plain'
  const forced = Boolean(env.FORCE_COLOR) && env.FORCE_COLOR !== '0'
  const colour = !flags.noColor && !env.NO_COLOR && kind !== 'json' && (tty || forced)
  const progressIntervalMs = (flags.progressInterval ?? defaultProgressIntervalSeconds) * 1000
  return { kind, colour, progressIntervalMs, columns: stdout.columns || 80 }
}

/**
 * `--progress-interval` as seconds (decimals allowed), or the error to print: it names the flag and
 * what to give instead.
 */
export function parseProgressInterval(command: string, value: string | undefined): number | { error: string } | undefined {
  if (value === undefined) return undefined
  const seconds = Number(value)
  if (value.trim() === '' || !Number.isFinite(seconds) || seconds <= 0) {
    return { error: `${command}: --progress-interval "${value}" is not a number of seconds above 0; give e.g. --progress-interval 10` }
  }
  return seconds
}
