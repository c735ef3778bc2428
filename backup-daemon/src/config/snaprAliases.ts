/**
 * @module config/snaprAliases
 * The original service's (snapr's) spellings mapped to ours on the raw document, before the schema
 * sees it, so a `snapr.yaml` loads unchanged and every source and storage factory only knows one
 * spelling. Where both spellings of one key appear in one place, that is an error (which one was
 * meant?); where the original's is used, a notice says which one we prefer. Also names the sources
 * the original leaves unnamed. Every moved value is recorded so errors found later by the schema
 * still point at the line and column of the key as written.
 */

export type Path = (string | number)[]
type Report = (path: Path, message: string) => void

export interface AliasResult {
  /** The document with our spellings only (a copy; the input is not changed). */
  value: unknown
  /** Where a moved value was written: formatted new path → path in the file. */
  moves: Map<string, Path>
}

/** The original's compression names beside ours. */
const compressionAliases: Record<string, string> = { gz: 'tar.gz', gzip: 'tar.gz', zst: 'tar.zst', zstd: 'tar.zst', xz: 'tar.xz' }
const sameSiteValues: Record<string, string> = { lax: 'Lax', strict: 'Strict', none: 'None' }
/** The original's flat email keys → ours under `smtp`. */
const smtpKeys: [string, string][] = [
  ['smtpHost', 'host'],
  ['smtpPort', 'port'],
  ['smtpUser', 'username'],
  ['smtpPass', 'password'],
  ['useTLS', 'secure'],
]

type Doc = Record<string, unknown>
const record = (value: unknown): Doc | undefined => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Doc) : undefined)

export function formatPath(path: Path): string {
  return path.map((step, i) => (typeof step === 'number' ? `[${step}]` : i === 0 ? step : `.${step}`)).join('')
}

/** The path in the file of a value the alias step moved (or `path` itself). */
export function pathInFile(moves: Map<string, Path>, path: Path): Path {
  for (let i = path.length; i > 0; i -= 1) {
    const moved = moves.get(formatPath(path.slice(0, i)))
    if (moved) return [...moved, ...path.slice(i)]
  }
  return path
}

export function applySnaprAliases(raw: unknown, report: Report, notice: Report): AliasResult {
  const moves = new Map<string, Path>()
  const root = structuredClone(raw)
  const top = record(root)
  if (!top) return { value: root, moves }

  /** Renames `from` to `to` in `obj` (at `path` in our document, `filePath` in the file). */
  const rename = (obj: Doc, path: Path, filePath: Path, from: string, to: string, what = `"${to}"`): void => {
    if (!(from in obj)) return
    if (to in obj) {
      report([...filePath, from], `"${from}" (the original's spelling) and "${to}" name the same key: keep one (${what} is preferred)`)
      delete obj[from]
      return
    }
    obj[to] = obj[from]
    delete obj[from]
    moves.set(formatPath([...path, to]), [...filePath, from])
    notice([...filePath, from], `"${from}" is the original's spelling of "${to}"; both work, ${what} is preferred`)
  }

  const logs = record(top.logs)
  if (logs) rename(logs, ['logs'], ['logs'], 'path', 'directory')

  const server = record(top.server)
  if (server && 'logLimits' in server) {
    if ('logLimits' in top)
      report(
        ['server', 'logLimits'],
        'logLimits is set both under server (the original\'s place) and at the top level: keep one (top-level "logLimits" is preferred)',
      )
    else {
      top.logLimits = server.logLimits
      moves.set('logLimits', ['server', 'logLimits'])
      notice(['server', 'logLimits'], 'server.logLimits is the original\'s place of "logLimits"; both work, top-level "logLimits" is preferred')
    }
    delete server.logLimits
  }
  const cookies = record(record(server?.auth)?.cookies)
  if (cookies && typeof cookies.sameSite === 'string' && sameSiteValues[cookies.sameSite]) cookies.sameSite = sameSiteValues[cookies.sameSite]

  if (!Array.isArray(top.jobs)) return { value: root, moves }
  top.jobs.forEach((item, index) => {
    const job = record(item)
    if (!job) return
    const at: Path = ['jobs', index]
    const notifyInFile: Path = 'notifiers' in job && !('notify' in job) ? [...at, 'notifiers'] : [...at, 'notify']
    rename(job, at, at, 'notifiers', 'notify')
    aliasCompression(job)
    const encryption = record(job.encryption)
    // The original has one encryption type and lets `type` be left out.
    if (encryption && !('type' in encryption)) encryption.type = 'openssl'
    if (Array.isArray(job.sources)) aliasSources(job.sources, [...at, 'sources'])
    if (Array.isArray(job.storages)) {
      job.storages.forEach((storage, i) => bunnyToHost(record(storage), [...at, 'storages', i]))
    }
    if (Array.isArray(job.notify)) job.notify.forEach((entry, i) => aliasNotifier(record(entry), [...at, 'notify', i], [...notifyInFile, i]))
  })
  return { value: root, moves }

  function aliasCompression(job: Doc): void {
    if (typeof job.compression === 'string') job.compression = compressionAliases[job.compression] ?? job.compression
    const object = record(job.compression)
    if (object && typeof object.type === 'string') object.type = compressionAliases[object.type] ?? object.type
  }

  function bunnyToHost(entry: Doc | undefined, path: Path): void {
    if (entry?.type !== 'bunny') return
    entry.type = 'host'
    notice([...path, 'type'], 'type "bunny" is the original\'s name of "host"; both work, "host" is preferred')
  }

  function aliasSources(sources: unknown[], path: Path): void {
    sources.forEach((item, i) => {
      const source = record(item)
      if (!source) return
      const at = [...path, i]
      // The original's types name the folder of an unnamed source, so `bunny` stays `bunny` there.
      const writtenType = source.type
      bunnyToHost(source, at)
      if (source.type === 'local') rename(source, at, at, 'excludes', 'exclude')
      if (source.type === 'postgresql') {
        rename(source, at, at, 'username', 'user')
        if ('extraParams' in source) {
          const params = record(source.extraParams)
          if (!params) report([...at, 'extraParams'], 'extraParams must be a map of pg_dump options (key → value, "" for a bare flag)')
          else if ('params' in source)
            report([...at, 'extraParams'], '"extraParams" (the original\'s spelling) and "params" name the same option: keep one ("params" is preferred)')
          else {
            source.params = Object.entries(params).map(([key, value]) => (value === '' || value === null ? `--${key}` : `--${key}=${String(value)}`))
            moves.set(formatPath([...at, 'params']), [...at, 'extraParams'])
            notice([...at, 'extraParams'], '"extraParams" is the original\'s spelling of "params" (key → --key=value); both work, "params" is preferred')
          }
          delete source.extraParams
        }
      }
      if (!('name' in source)) source.__writtenType = writtenType
    })
    nameSources(sources)
  }

  /**
   * The original has no source names; ours name the source's folder in the archive. An unnamed source
   * is named after its type as written (`local`, `postgresql`), the second of a type `<type>-2`, and so
   * on, skipping names other sources of the job already use.
   */
  function nameSources(sources: unknown[]): void {
    const used = new Set(sources.map((s) => record(s)?.name).filter((n): n is string => typeof n === 'string'))
    for (const item of sources) {
      const source = record(item)
      if (!source || !('__writtenType' in source)) continue
      const base = typeof source.__writtenType === 'string' && /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(source.__writtenType) ? source.__writtenType : 'source'
      delete source.__writtenType
      let name = base
      for (let n = 2; used.has(name); n += 1) name = `${base}-${n}`
      used.add(name)
      source.name = name
    }
  }

  function aliasNotifier(entry: Doc | undefined, path: Path, filePath: Path): void {
    if (!entry) return
    const flags = ['onSuccess', 'onFailure'].filter((key) => key in entry)
    if (flags.length > 0) {
      if ('on' in entry) report([...filePath, flags[0]!], `"${flags[0]}" (the original's spelling) and "on" say the same thing: keep one ("on" is preferred)`)
      else {
        const bad = flags.find((key) => typeof entry[key] !== 'boolean')
        if (bad) report([...filePath, bad], `${bad} must be true or false`)
        else {
          entry.on = [...(entry.onSuccess === true ? ['success'] : []), ...(entry.onFailure === true ? ['failure'] : [])]
          moves.set(formatPath([...path, 'on']), [...filePath, flags[0]!])
          notice([...filePath, flags[0]!], 'onSuccess/onFailure are the original\'s spelling of "on: [success, failure]"; both work, "on" is preferred')
        }
      }
      for (const key of flags) delete entry[key]
    }
    if (entry.type !== 'email') return
    const flat = smtpKeys.filter(([key]) => key in entry)
    if (flat.length === 0) return
    if ('smtp' in entry) {
      report(
        [...filePath, flat[0]![0]],
        `"${flat[0]![0]}" (the original's spelling) and "smtp" name the same settings: keep one ("smtp: {host, port, ...}" is preferred)`,
      )
      for (const [key] of flat) delete entry[key]
      return
    }
    const smtp: Doc = {}
    for (const [key, ours] of flat) {
      smtp[ours] = entry[key]
      delete entry[key]
    }
    // Also for keys left out: a missing smtpHost is reported as `smtpHost`, at the entry.
    for (const [key, ours] of smtpKeys) moves.set(formatPath([...path, 'smtp', ours]), [...filePath, key])
    entry.smtp = smtp
    moves.set(formatPath([...path, 'smtp']), filePath)
    notice(
      [...filePath, flat[0]![0]],
      'smtpHost/smtpPort/smtpUser/smtpPass/useTLS are the original\'s spelling of "smtp: {host, port, username, password, secure}"; both work, "smtp" is preferred',
    )
  }
}
