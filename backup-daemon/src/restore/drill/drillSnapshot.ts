/**
 * @module restore/drill/drillSnapshot
 * A restore drill of one snapshot copy (already verified by the caller): its tar is unpacked with the
 * restore's own checks (`restore/extractTo`) into the drill's scratch folder, never into a source's
 * target, or the repository restores it there itself when it can (restic's restorer: what a restore of
 * the copy would do, so the drill proves that path); the files read back are compared with the snapshot's record (`compareFiles`), and each
 * database source's restored dump goes through its kind's drill check (`SourceFactory.drill`: SQLite
 * runs `PRAGMA integrity_check` and counts the rows of every table), against what the backup recorded;
 * with `jobs[].drill.cms`, then the CMS's documents against the restored files and videos (`cmsCheck`).
 * No kind is named here: the registry says which sources have a check.
 */
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import type { CmsCheckConfig } from '../../config/cmsCheckConfig.js'
import type { SourceConfig } from '../../config/types.js'
import type { LogLevel } from '../../logs/formatLine.js'
import { sourceFactory } from '../../sources/all.js'
import { readRecord, type RecordView } from '../../tar/recordReader.js'
import { recordEntryName, type SnapshotRecord } from '../../tar/snapshotRecord.js'
import { extractTo, type ExtractOptions, type ExtractResult } from '../extractTo.js'
import { cmsCheck } from './cmsCheck.js'
import { compareFiles, type ExpectedFile } from './compareFiles.js'

/**
 * A file the repository lists itself (`ListedFile` of repository/types, the same shape: restore sits below the
 * repositories, which restore through it, so it names no type of theirs).
 */
export interface ExpectedListedFile {
  name: string
  size: number
  lossy: boolean
}

/**
 * The repository's own restore into a folder (`DirectRestore` of repository/types, the same shape: restore sits
 * below the repositories), telling a dump's record and each entry it unpacks through the tar path.
 */
export interface ExpectedDirectRestore {
  readonly by: string
  into(dir: string, hooks: Pick<ExtractOptions, 'onRecord' | 'onEntry'>): Promise<ExtractResult>
}

export interface DrillSnapshotOptions {
  /** The copy's tar bytes (decrypted, decompressed). */
  openTar(): Promise<Readable>
  /** The repository's own restore of the copy, planned by the caller; the tar is unpacked when absent. */
  restorer?: ExpectedDirectRestore
  /** Files the repository lists itself, whose tar entries carry no record (`StoredSnapshot.listedFiles`: restic's folder sources). */
  listedFiles?(): Promise<ExpectedListedFile[]>
  /** The job's sources (those whose kind has a drill check are checked). */
  sources: readonly SourceConfig[]
  /** The drill's scratch folder (`drillScratch`), empty. */
  scratch: string
  /** Where database dumps are restored to be checked (`jobs[].drill.databaseServer`). @default 'configured' */
  databaseServer?: 'configured' | 'temporary'
  /** The job's check of a CMS as a whole (`jobs[].drill.cms`, `cmsCheck`), after the sources' own. */
  cms?: CmsCheckConfig
  signal: AbortSignal
  log(level: LogLevel, message: string): void
  /** Each entry as it is unpacked, and each file as it is read back (progress). */
  onEntry?(name: string): void
  /** Told how many files are read back and compared, once unpacked (progress). */
  onComparing?(files: number): void
}

export interface DrillOutcome {
  /** Every difference found, each naming the file, table or check (empty: the drill passed). */
  differences: string[]
  /** What was proven, one line. */
  summary: string
  /** Why nothing could be compared (no record and no listing): the copy is not proven, which is not a failure. */
  unproven?: string
}

export async function drillSnapshot(options: DrillSnapshotOptions): Promise<DrillOutcome> {
  const { signal } = options
  const filesDir = join(options.scratch, 'files')
  // Every record entry counts: an archive has one; a restic run one per dump source (each its own tar).
  const records: RecordView[] = []
  let unreadable: Error | undefined
  const hooks = {
    onRecord: (bytes: Buffer) => {
      try {
        records.push(readRecord(bytes, recordEntryName))
      } catch (err) {
        unreadable ??= err as Error
      }
    },
    ...(options.onEntry && { onEntry: options.onEntry }),
  }
  let unpacked: ExtractResult
  if (options.restorer) {
    await mkdir(filesDir, { recursive: true, mode: 0o700 })
    unpacked = await options.restorer.into(filesDir, hooks)
  } else unpacked = await extractTo(await options.openTar(), filesDir, { signal, ...hooks })
  signal.throwIfAborted()
  if (unreadable) throw unreadable
  const by = options.restorer ? ` with ${options.restorer.by}` : ''
  options.log('info', `unpacked ${unpacked.files} file(s), ${unpacked.directories} folder(s), ${unpacked.links} link(s) into the scratch folder${by}`)
  const listed = (await options.listedFiles?.()) ?? []
  if (records.length === 0 && listed.length === 0) {
    const why = `the snapshot holds no record (${recordEntryName}): written before records existed, as a zip, or by another tool; it unpacked, but nothing can be compared`
    return { differences: [], summary: '', unproven: why }
  }
  const sources: SnapshotRecord['sources'] = Object.assign({}, ...records.map((record) => record.sources))
  // Read again for each use (the comparison, each source's check), never held: a million files' record is
  // ~50 MB as bytes and was over a gigabyte as objects.
  const expected = function* (): Generator<ExpectedFile> {
    for (const record of records) for (const [name, size, value] of record.files()) yield { name, size, digest: { kind: record.digest, value } }
    for (const file of listed) yield { name: file.name, size: file.size, ...(file.lossy && { lossy: true }) }
  }
  const expectedCount = records.reduce((sum, record) => sum + record.fileCount, listed.length)
  options.onComparing?.(expectedCount)
  const files = await compareFiles(filesDir, expected, { signal, ...(options.onEntry && { onFile: options.onEntry }) })
  const differences = [...files.differences]
  const how = [
    ...new Set(records.filter((record) => record.fileCount > 0).map((record) => `the record's sizes and ${record.digest}`)),
    ...(listed.length ? ["the repository's listing (contents checked by restic's hashes as they were read)"] : []),
  ].join(' and ')
  const proven = [`${files.compared} of ${expectedCount} file(s) (${files.bytes} bytes) match ${how}`]
  const entriesOf = (source: string) => {
    const entries: { name: string; path: string }[] = []
    for (const { name } of expected()) if (name.startsWith(`${source}/`)) entries.push({ name, path: join(filesDir, name) })
    return entries
  }
  for (const source of options.sources) {
    const drill = sourceFactory(source.type)?.drill
    if (!drill) continue
    signal.throwIfAborted()
    const entries = entriesOf(source.name)
    const scratch = join(options.scratch, 'checks', source.name)
    await mkdir(scratch, { recursive: true, mode: 0o700 })
    const check = await drill.check({
      config: source,
      files: entries,
      recorded: sources[source.name]?.recorded,
      scratch,
      databaseServer: options.databaseServer ?? 'configured',
      log: (level, message) => options.log(level, `source "${source.name}": ${message}`),
      signal,
    })
    options.log(check.differences.length ? 'warn' : 'info', `source "${source.name}" (${source.type}): ${check.checked}`)
    differences.push(...check.differences.map((d) => `source "${source.name}": ${d}`))
    if (check.differences.length === 0) proven.push(`source "${source.name}": ${check.checked}`)
  }
  if (options.cms) {
    signal.throwIfAborted()
    // Under `checks` (what a sweep of a killed drill looks in); no source name starts with "_".
    const scratch = join(options.scratch, 'checks', '_cms')
    await mkdir(scratch, { recursive: true, mode: 0o700 })
    const cms = await cmsCheck({
      cms: options.cms,
      sources: options.sources,
      entriesOf,
      filesDir,
      scratch,
      databaseServer: options.databaseServer ?? 'configured',
      log: (level, message) => options.log(level, `CMS check: ${message}`),
      signal,
    })
    options.log(cms.differences.length ? 'warn' : 'info', `CMS check: ${cms.checked || 'not run'}`)
    differences.push(...cms.differences.map((d) => `CMS check: ${d}`))
    if (cms.differences.length === 0) proven.push(`CMS check: ${cms.checked}`)
  }
  return { differences, summary: proven.join('; ') }
}
