/**
 * @module config/loadConfig
 * Reads the YAML file, resolves `env:VAR` secrets, validates with the zod schema and applies the
 * defaults. Every problem is reported at once with its line and column, taken from the YAML nodes.
 */
import { readFile } from 'node:fs/promises'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml'
import type { z } from 'zod'
import { sourceFactory } from '../sources/all.js'
import { storageFactory } from '../storages/all.js'
import type { DaemonConfig } from './types.js'
import { ConfigError, type ConfigIssue } from './ConfigError.js'
import { configSchema, type ParsedConfig } from './schema.js'
import { crossChecks } from './crossChecks.js'
import { checkPaths, pathsAsWritten } from './checkPaths.js'
import { publicZoneWarnings } from './publicZoneWarnings.js'
import { resolveEnv } from './resolveEnv.js'
import { applySnaprAliases, formatPath, pathInFile, type Path } from './snaprAliases.js'

/** A loaded config and the notices about it (the original's spellings used where we prefer ours). */
export interface LoadedConfig {
  config: DaemonConfig
  notices: ConfigIssue[]
}

/**
 * Loads and validates a config file.
 * @throws ConfigError with every issue found (syntax, unknown keys, types, cron, duplicates, env vars).
 * @example
 * const config = await loadConfig('/etc/backup-daemon.yaml')
 */
export async function loadConfig(file: string, env: NodeJS.ProcessEnv = process.env): Promise<DaemonConfig> {
  return (await readConfig(file, env)).config
}

export interface ReadOptions {
  /** Also check the paths on this machine (config/checkPaths.ts): what `check-config` adds. */
  checkPaths?: boolean
}

/** `loadConfig` with the notices `check-config` prints. */
export async function readConfig(file: string, env: NodeJS.ProcessEnv = process.env, options: ReadOptions = {}): Promise<LoadedConfig> {
  const absolute = resolve(file)
  let text: string
  try {
    text = await readFile(absolute, 'utf8')
  } catch (err) {
    throw new ConfigError(file, [{ path: '', line: 0, column: 0, message: `cannot read the file: ${(err as Error).message}` }])
  }
  return parseConfigWithNotices(text, file, dirname(absolute), env, options)
}

/** Validates YAML text; relative paths are resolved against `baseDir`. */
export function parseConfig(text: string, file: string, baseDir: string, env: NodeJS.ProcessEnv = process.env): DaemonConfig {
  return parseConfigWithNotices(text, file, baseDir, env).config
}

export function parseConfigWithNotices(
  text: string,
  file: string,
  baseDir: string,
  env: NodeJS.ProcessEnv = process.env,
  options: ReadOptions = {},
): LoadedConfig {
  const lineCounter = new LineCounter()
  const doc = parseDocument(text, { lineCounter, prettyErrors: false })
  const at = (offset: number) => {
    const { line, col } = lineCounter.linePos(offset)
    return { line, column: col }
  }
  if (doc.errors.length > 0) {
    throw new ConfigError(
      file,
      doc.errors.map((e) => ({ path: '', ...at(e.pos[0]), message: e.message.split('\n')[0] ?? e.message })),
    )
  }
  const raw: unknown = doc.toJS() ?? {}
  const issues: ConfigIssue[] = []
  const notices: ConfigIssue[] = []
  const inFile = (path: Path) => ({ path: formatPath(path), ...at(offsetOf(doc, path)) })
  const withEnv = resolveEnv(raw, env, (path, message) => issues.push({ ...inFile(path), message }))
  // The alias step names keys: point at the key itself.
  const keyInFile = (path: Path) => {
    const last = path[path.length - 1]
    return typeof last === 'string' ? { path: formatPath(path), ...at(offsetOf(doc, path.slice(0, -1), last)) } : inFile(path)
  }
  const { value: aliased, moves } = applySnaprAliases(
    withEnv,
    (path, message) => issues.push({ ...keyInFile(path), message }),
    (path, message) => notices.push({ ...keyInFile(path), message }),
  )
  // Paths below are in our spelling; `pathInFile` maps them back to the keys as written.
  const place = (path: Path, key?: string) => {
    const written = pathInFile(moves, key === undefined ? path : [...path, key])
    return {
      path: formatPath(written),
      ...at(key === undefined ? offsetOf(doc, written) : offsetOf(doc, written.slice(0, -1), String(written[written.length - 1]))),
    }
  }
  crossChecks(aliased, (path, message) => issues.push({ ...place(path), message }))
  const result = configSchema.safeParse(aliased)
  if (!result.success) {
    issues.push(...result.error.issues.flatMap((issue) => toIssues(aliased, issue, place)))
    // All in one pass: the paths as written too, or a missing folder shows only once the file's errors are fixed.
    if (options.checkPaths) issues.push(...checkPaths(pathsAsWritten(aliased, baseDir)).map(({ path, message }) => ({ ...place(path), message })))
  }
  if (issues.length > 0 || !result.success) {
    issues.sort((a, b) => a.line - b.line || a.column - b.column)
    throw new ConfigError(file, issues)
  }
  const config = finish(result.data, baseDir)
  for (const { path, message } of publicZoneWarnings(config)) notices.push({ ...place(path), message })
  notices.sort((a, b) => a.line - b.line || a.column - b.column)
  if (options.checkPaths) {
    const problems = checkPaths(config).map(({ path, message }) => ({ ...place(path), message }))
    if (problems.length > 0) throw new ConfigError(file, problems)
  }
  return { config, notices }
}

type Place = (path: Path, key?: string) => { path: string; line: number; column: number }

function toIssues(input: unknown, issue: z.core.$ZodIssue, place: Place): ConfigIssue[] {
  const path = issue.path as Path
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({ ...place(path, key), message: `unknown key "${key}"` }))
  }
  let message = issue.message
  if (issue.code === 'invalid_union' && path[path.length - 1] !== 'type') message = 'unknown or missing "type"'
  const options = (issue as { options?: unknown[] }).options
  if (issue.code === 'invalid_union' && path[path.length - 1] === 'type' && Array.isArray(options))
    message = `unknown type; expected one of: ${options.join(', ')}`
  if (issue.code === 'invalid_value' && path[path.length - 1] === 'type') message = `unknown type; expected one of: ${issue.values.join(', ')}`
  if (issue.code === 'invalid_type' && valueAt(input, path) === undefined) message = 'required key is missing'
  return [{ ...place(path), message }]
}

function valueAt(input: unknown, path: Path): unknown {
  let value = input
  for (const step of path) value = value && typeof value === 'object' ? (value as Record<string | number, unknown>)[step] : undefined
  return value
}

/** Start offset of the node at `path` (or of `key` in that map), falling back to the nearest ancestor. */
function offsetOf(doc: Document, path: Path, key?: string): number {
  let node: unknown = doc.contents
  let offset = (doc.contents as Node | null)?.range?.[0] ?? 0
  const steps = key === undefined ? path : [...path, key]
  for (const [index, step] of steps.entries()) {
    if (isMap(node)) {
      const pair = node.items.find((p) => (isScalar(p.key) ? p.key.value : p.key) === step)
      if (!pair) break
      const last = index === steps.length - 1
      // Point at the key for unknown keys and at the value otherwise.
      const target = (last && key !== undefined ? pair.key : (pair.value ?? pair.key)) as Node | null
      offset = target?.range?.[0] ?? offset
      node = pair.value
    } else if (isSeq(node) && typeof step === 'number') {
      const item = node.items[step] as Node | undefined
      if (!item) break
      offset = item.range?.[0] ?? offset
      node = item
    } else break
  }
  return offset
}

/** Defaults that depend on other values, and paths made absolute. */
function finish(parsed: ParsedConfig, baseDir: string): DaemonConfig {
  const abs = (path: string) => (isAbsolute(path) ? path : join(baseDir, path))
  const dataDir = abs(parsed.dataDir)
  const { auth, ...server } = parsed.server
  const resolvePaths = <T extends { type: string }>(entry: T, keys: string[] | undefined): T => {
    const copy: Record<string, unknown> = { ...entry }
    for (const key of keys ?? []) if (typeof copy[key] === 'string') copy[key] = abs(copy[key] as string)
    return copy as T
  }
  return {
    dataDir,
    server: {
      ...server,
      auth: auth ?? { enabled: false, username: '', password: '', tokenExpiration: 30, cookies: { secure: false, sameSite: 'Lax' }, allowedOrigins: [] },
    },
    logs: { ...parsed.logs, directory: parsed.logs.directory ? abs(parsed.logs.directory) : join(dataDir, 'logs') },
    logLimits: parsed.logLimits,
    history: parsed.history,
    restore: parsed.restore,
    jobs: parsed.jobs.map(({ compression, encryption, ...job }) => ({
      ...job,
      ...(typeof compression === 'string'
        ? { compression }
        : { compression: compression.type, ...(compression.level !== undefined && { compressionLevel: compression.level }) }),
      ...(encryption?.type === 'age' && {
        encryption: {
          type: encryption.type,
          ...(encryption.recipients ? { recipients: encryption.recipients } : { passphrase: encryption.passphrase ?? encryption.password }),
        },
      }),
      ...(encryption?.type === 'openssl' && { encryption }),
      sources: (job.sources as { type: string }[]).map((s) => resolvePaths(s, sourceFactory(s.type)?.pathKeys)),
      storages: (job.storages as { type: string }[]).map((s) => {
        const entry = storageFactory(s.type)
        const resolved = resolvePaths(s, entry?.pathKeys)
        return entry?.resolvePaths ? entry.resolvePaths(resolved as never, abs) : resolved
      }),
    })) as DaemonConfig['jobs'],
  }
}
