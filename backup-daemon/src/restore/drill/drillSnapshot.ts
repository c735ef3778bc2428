/**
 * @module restore/drill/drillSnapshot
 * A restore drill of one snapshot copy (already verified by the caller): its tar is unpacked with the
 * restore's own checks (`restore/extractTo`) into the drill's scratch folder, never into a source's
 * target; the files read back are compared with the snapshot's record (`compareFiles`), and each
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
import { parseRecord, recordEntryName, type SnapshotRecord } from '../../tar/snapshotRecord.js'
import { extractTo } from '../extractTo.js'
import { cmsCheck } from './cmsCheck.js'
import { compareFiles } from './compareFiles.js'

export interface DrillSnapshotOptions {
  /** The copy's tar bytes (decrypted, decompressed). */
  openTar(): Promise<Readable>
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
}

export interface DrillOutcome {
  /** Every difference found, each naming the file, table or check (empty: the drill passed). */
  differences: string[]
  /** What was proven, one line. */
  summary: string
}

export async function drillSnapshot(options: DrillSnapshotOptions): Promise<DrillOutcome> {
  const { signal } = options
  const filesDir = join(options.scratch, 'files')
  let recordBytes: Buffer | undefined
  const unpacked = await extractTo(await options.openTar(), filesDir, {
    signal,
    onRecord: (bytes) => (recordBytes = bytes),
    ...(options.onEntry && { onEntry: options.onEntry }),
  })
  signal.throwIfAborted()
  options.log('info', `unpacked ${unpacked.files} file(s), ${unpacked.directories} folder(s), ${unpacked.links} link(s) into the scratch folder`)
  if (!recordBytes) {
    const why = `the snapshot holds no record (${recordEntryName}): written before records existed, as a zip, or by another tool; it unpacked, but nothing can be compared`
    return { differences: [why], summary: '' }
  }
  const record: SnapshotRecord = parseRecord(recordBytes)
  const files = await compareFiles(filesDir, record.files, record.digest, { signal, ...(options.onEntry && { onFile: options.onEntry }) })
  const differences = [...files.differences]
  const proven = [`${files.compared} of ${record.files.length} file(s) (${files.bytes} bytes) match the record's sizes and ${record.digest}`]
  const entriesOf = (source: string) => record.files.filter(([name]) => name.startsWith(`${source}/`)).map(([name]) => ({ name, path: join(filesDir, name) }))
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
      recorded: record.sources[source.name]?.recorded,
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
