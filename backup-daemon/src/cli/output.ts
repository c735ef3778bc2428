/**
 * @module cli/output
 * What every command shares: stdout lines (ANSI colours only for a terminal or FORCE_COLOR), loading
 * the config with every issue printed (a misspelled key with the nearest valid one), and waiting for SIGINT/SIGTERM. The config loader (yaml, zod and
 * every factory's schema) is imported when a config is loaded, so `hash-password` does without it.
 */
import { ConfigError, formatIssue, type ConfigIssue } from '../config/ConfigError.js'
import type { DaemonConfig } from '../config/types.js'
import { consoleTarget } from '../logs/consoleLine.js'
import { stripAnsi } from '../logs/formatLine.js'

// NO_COLOR (https://no-color.org) wins over a terminal and FORCE_COLOR alike.
const { colour } = consoleTarget()
export const out = (line: string) => process.stdout.write((colour ? line : stripAnsi(line)) + '\n')

/** Loads the config or prints every issue; undefined means "exit 1". */
export async function load(file: string): Promise<DaemonConfig | undefined> {
  return (await loadWithNotices(file))?.config
}

/** `load` plus the notices (the original's spellings met) for `check-config`. */
export async function loadWithNotices(
  file: string,
  options: { checkPaths?: boolean } = {},
): Promise<{ config: DaemonConfig; notices: ConfigIssue[] } | undefined> {
  const { readConfig } = await import('../config/loadConfig.js')
  try {
    return await readConfig(file, process.env, options)
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err
    // A misspelled key names the nearest valid one (only on this error path is the schema walked).
    const { withKeySuggestion } = await import('./configKeySuggestion.js')
    for (const issue of err.issues) process.stderr.write(formatIssue(file, withKeySuggestion(issue)) + '\n')
    process.stderr.write(`${err.issues.length} error(s) in ${file}\n`)
    return undefined
  }
}

/** Resolves with the signal's name when SIGINT or SIGTERM arrives. */
export function nextSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals) => {
      process.off('SIGINT', on).off('SIGTERM', on)
      resolve(signal)
    }
    process.on('SIGINT', on).on('SIGTERM', on)
  })
}
