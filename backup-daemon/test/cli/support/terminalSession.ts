/**
 * @module test/cli/support/terminalSession
 * The real `backup-daemon` in a pseudo-terminal, as an operator sees it over SSH: util-linux `script`
 * (`-q` quiet, `-f` flush, `-e` child's exit code, `-c` command) gives the child a pty for stdout, and
 * this reads what is drawn. `progressFrames` cuts that output into the live line's redraws
 * (`\r` + erase line + text) so a test can read each progress update.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { stripAnsi } from '../../../src/logs/formatLine.js'
import { daemonBin } from '../../support/runCli.js'

export interface Session {
  child: ChildProcess
  /** Everything written to the terminal so far. */
  output(): string
  /** Resolves with the exit code once the command (and `script`) ended. */
  done: Promise<number | null>
}

const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`

/** Fails (never skips) when `script` is missing: the tests need a real terminal. */
export function requireScript(): void {
  const found = spawnSync('script', ['--version'], { encoding: 'utf8' })
  if (found.error || found.status !== 0) throw new Error('util-linux `script` is needed to run the CLI in a pseudo-terminal (apt-get install -y bsdutils)')
}

/** `backup-daemon ...args` with its stdout on a pseudo-terminal. */
export function inTerminal(args: string[], { cwd, env = {} }: { cwd: string; env?: Record<string, string> }): Session {
  const command = [process.execPath, daemonBin, ...args].map(quote).join(' ')
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd,
    // stdin stays open (a pipe): `script` forwards it to the terminal and must not see an early end.
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, FORCE_COLOR: '', NO_COLOR: '', ...env },
  })
  let output = ''
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const done = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
  return { child, output: () => output, done }
}

export interface ProgressFrame {
  phase: string
  /** Bytes read as drawn, parsed back from "12.3 MiB". */
  bytes: number
  /** The line without its colours. */
  text: string
}

const units: Record<string, number> = { B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 }
const phases = 'preparing|hooks|dumping|archiving|uploading|retention|verifying|restoring|finishing'
const framePattern = new RegExp(`^(${phases}) +([\\d.]+) (B|KiB|MiB|GiB)`)
/** What the live line writes before each redraw: carriage return, erase the line. */
export const clearLine = '\r\x1b[2K'
/** An ANSI colour (SGR) sequence. */
export const colourCode = new RegExp(`${String.fromCharCode(27)}\\[\\d+m`)

/** Each redraw of the live line: the text after `\r` + erase line, up to the next one or a line end. */
export function progressFrames(output: string): ProgressFrame[] {
  const frames: ProgressFrame[] = []
  for (const piece of output.split(clearLine).flatMap((part) => part.split(/\r?\n/))) {
    const text = stripAnsi(piece).trim()
    const match = framePattern.exec(text)
    if (match) frames.push({ phase: match[1]!, bytes: Number(match[2]) * units[match[3]!]!, text })
  }
  return frames
}

/** The log lines printed above the live line (whole lines, the live line's redraws and colours removed). */
export function printedLines(output: string): string[] {
  return output
    .split(/\r?\n/)
    .map((line) => {
      const at = line.lastIndexOf(clearLine)
      return stripAnsi((at === -1 ? line : line.slice(at + clearLine.length)).replace(/\r$/, ''))
    })
    .filter((line) => line.trim() !== '')
}

/** Frames whose byte count moved on: the distinct updates an operator saw. */
export const distinctUpdates = (frames: ProgressFrame[]) => frames.filter((frame, i) => i === 0 || frame.bytes !== frames[i - 1]!.bytes)
