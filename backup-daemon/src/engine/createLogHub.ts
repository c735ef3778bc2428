/**
 * @module engine/createLogHub
 * (In `engine/`, not `logs/`: it reads the daemon config and the engine's log types; `logs/` keeps the
 * parts that need neither, so sources can escape names without reaching up.)
 * The `LogHub` of `engine/types.ts`: the system log and one log per job, bounded by `logLimits` in
 * memory, kept in files under `logs.directory` (`system.log`, `jobs/<job>.log`) rotated by size and
 * pruned by count and age as `logs.maxSizeMB`/`maxBackups`/`maxAgeDays`/`compress` say, reloaded on start, with
 * live subscribers. Every line loses its credentials first (`logs/redactSecrets`) and every control character but its
 * colours (`logs/escapeControl`). `append` stamps plain
 * messages with the time and a level (INFO, or ERROR when the message says "error"); lines already
 * stamped are kept as they are. A log switched off in the config keeps nothing, but subscribers (the CLI's `run`)
 * still see its lines.
 */
import { join } from 'node:path'
import type { DaemonConfig } from '../config/types.js'
import type { LogHub, LogScope } from './types.js'
import { formatLine, type LogLevel } from '../logs/formatLine.js'
import { defaultRotation, LogFile, type RotationOptions } from '../logs/LogFile.js'
import { neutraliseLine } from '../logs/escapeControl.js'
import { redactSecrets } from '../logs/redactSecrets.js'

/** A line that already starts with an RFC 3339 time (made by `formatLine`). */
const formatted = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z /

export interface DaemonLogHub extends LogHub {
  /** Formats and appends a line (timestamp, coloured level). Multi-line messages become several lines. */
  log(scope: LogScope, level: LogLevel, message: string): void
  /** Closes the files. */
  close(): void
  /** Resolves when the rotated files queued so far are compressed and pruned. */
  settled(): Promise<void>
}

/** The loader always sets the rotation keys; hand-built configs (tests) get the original's defaults. */
function rotationOf(logs: DaemonConfig['logs']): RotationOptions {
  return {
    maxBytes: (logs.maxSizeMB ?? defaultRotation.maxBytes / 1048576) * 1048576,
    maxBackups: logs.maxBackups ?? defaultRotation.maxBackups,
    maxAgeDays: logs.maxAgeDays ?? defaultRotation.maxAgeDays,
    compress: logs.compress ?? defaultRotation.compress,
  }
}

/**
 * @param options.persist Set to false to keep logs in memory only (tests). @default true
 */
export function createLogHub(config: DaemonConfig, options: { persist?: boolean } = {}): DaemonLogHub {
  const persist = options.persist ?? true
  const jobNames = new Set(config.jobs.map((job) => job.name))
  const files = new Map<string, LogFile>()
  const listeners = new Map<string, Set<(line: string) => void>>()
  const rotation = rotationOf(config.logs)
  const keyOf = (scope: LogScope) => (scope.kind === 'system' ? 'system' : `job:${scope.job}`)

  const enabled = (scope: LogScope) => (scope.kind === 'system' ? config.logs.system : config.logs.perJob && jobNames.has(scope.job))

  const fileOf = (scope: LogScope): LogFile | undefined => {
    if (!enabled(scope)) return undefined
    const key = keyOf(scope)
    let file = files.get(key)
    if (!file) {
      const path = scope.kind === 'system' ? join(config.logs.directory, 'system.log') : join(config.logs.directory, 'jobs', `${scope.job}.log`)
      const limit = scope.kind === 'system' ? config.logLimits.systemLogs : config.logLimits.jobLogs
      // A rotation failure (disk full) is reported on stderr: writing it to a log could fail the same way.
      file = new LogFile(persist ? path : undefined, limit, rotation, (message) => process.stderr.write(`backup-daemon: ${message}\n`))
      files.set(key, file)
    }
    return file
  }

  const append = (scope: LogScope, raw: string) => {
    // Every line, whoever wrote it (an error message may quote a URL with its credentials): the files,
    // `GET /logs`, streams and `run` all see the same redacted text.
    const line = neutraliseLine(redactSecrets(raw))
    fileOf(scope)?.append(line)
    for (const listener of listeners.get(keyOf(scope)) ?? []) {
      try {
        listener(line)
      } catch {
        // A failing subscriber (a closed stream) must not break logging for the others.
      }
    }
  }

  // Open every enabled log now so files from before a restart are read once, at start.
  fileOf({ kind: 'system' })
  for (const name of jobNames) fileOf({ kind: 'job', job: name })

  return {
    enabled,
    tail: (scope, count) => fileOf(scope)?.tail(count) ?? [],
    subscribe(scope, listener) {
      const key = keyOf(scope)
      const set = listeners.get(key) ?? new Set()
      listeners.set(key, set)
      set.add(listener)
      return () => set.delete(listener)
    },
    append: (scope, line) => {
      // Callers (the HTTP server) pass plain messages: give them the time and level every line has.
      const now = new Date()
      for (const part of line.split('\n')) append(scope, formatted.test(part) ? part : formatLine(/error/i.test(part) ? 'error' : 'info', part, now))
    },
    log: (scope, level, message) => {
      const now = new Date()
      for (const part of message.split('\n')) append(scope, formatLine(level, part, now))
    },
    close() {
      for (const file of files.values()) file.close()
      files.clear()
    },
    async settled() {
      await Promise.all([...files.values()].map((file) => file.settled()))
    },
  }
}
