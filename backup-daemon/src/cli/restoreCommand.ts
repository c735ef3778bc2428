/**
 * @module cli/restoreCommand
 * `backup-daemon restore JOB SNAPSHOT --config FILE --to DIR` unpacks a snapshot into a folder;
 * `--into-database` restores the job's database sources (`sqlite`, `postgresql`, `mongodb`, or only
 * those named by `--source`) where they read from. Either way the snapshot's parts are verified against
 * the manifest first (a storage whose copy fails is skipped for the next one holding the snapshot),
 * then decrypted (the job's passphrase or openssl password, or `--identity FILE` for age recipients) and
 * decompressed; files are unpacked next to `--to` and moved into place at the end (`tasks/restoreFiles`).
 * `--into-library` (with `--to`) then uploads the sources that live in a video library from that folder
 * (`restore/uploadSources`), writing old id → new id to `--guid-map`.
 * A snapshot without a manifest (the original service's) is first read to its end
 * (decrypted, decompressed, every entry), so a truncated one, a split set missing a part or a wrong
 * password is refused before anything is written.
 * Runs as a task (`runTask`): live progress (verifying, then restoring), log lines, a history record.
 */
import { lstat, mkdir, readFile, realpath } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import type { AgeKeys } from '../archive/ageStream.js'
import { restoreDatabases, restoreOf } from '../restore/restoreDatabases.js'
import { sourceFactories } from '../sources/all.js'
import { restoreFiles } from '../tasks/restoreFiles.js'
import { describeUploads, uploadableSources, uploadSources } from '../restore/uploadSources.js'
import type { SnapshotCopy } from '../repository/jobRepository.js'
import { readLimiterOf, runTask, taskReadOptions, type CliTaskOptions } from './runTask.js'
import { openJob, repositoryOf, type JobContext } from './snapshotCommand.js'
import { inProcessReporter } from './terminal/inProcessReporter.js'
import type { Reporter } from './terminal/Reporter.js'

/** The database kinds of the registry in words: "sqlite, …, mariadb and redis (with a path)". */
function databaseKinds(): string {
  const kinds = sourceFactories.flatMap(({ type, restore }) => (restore ? [restore.restorableWhen ? `${type} (${restore.restorableWhen})` : type] : []))
  return kinds.length > 1 ? `${kinds.slice(0, -1).join(', ')} and ${kinds.at(-1)}` : kinds.join('')
}

/** A storage's copy of the snapshot (not a missing one). */
type Found = Extract<SnapshotCopy, { snapshot: unknown }>

export interface RestoreArgs extends CliTaskOptions {
  file: string
  job: string
  snapshot: string
  to?: string
  intoDatabase: boolean
  /** With `to`: upload the job's sources that live in a service (a video library) from the unpacked folder. */
  intoLibrary?: boolean
  /** With `intoLibrary`: another library than each source's own. */
  libraryId?: number
  /** With `intoLibrary`: where the old → new id map goes (JSON). */
  guidMap?: string
  sources: string[]
  storage?: string
  identity?: string
  force: boolean
}

export async function restoreCommand(args: RestoreArgs, reporter: Reporter): Promise<number> {
  if ((args.intoLibrary && !args.to) || ((args.libraryId !== undefined || args.guidMap) && !args.intoLibrary)) {
    reporter.message(
      'error',
      'restore: --into-library goes with --to DIR (the videos are uploaded from there); --library-id and --guid-map go with --into-library',
    )
    return 2
  }
  if (Boolean(args.to) === args.intoDatabase) {
    reporter.message('error', 'restore: give either --to DIR (unpack the files into a folder) or --into-database (restore the database sources in place)')
    return 2
  }
  const opened = await openJob(args.file, args.job, args.storage, 'restore')
  if (typeof opened === 'number') return opened
  return restoreIn(opened, args, reporter)
}

/** The restore with the job and its storages at hand (the CLI loads them from the config file). */
export async function restoreIn(
  opened: JobContext,
  args: Omit<RestoreArgs, 'file' | 'job' | 'storage'>,
  reporter: Reporter = inProcessReporter(),
): Promise<number> {
  const { job } = opened
  const sources = job.sources.filter((s) => restoreOf(s) && (args.sources.length === 0 || args.sources.includes(s.name)))
  if (args.intoDatabase && sources.length === 0) {
    const named = args.sources.length ? ` named ${args.sources.join(', ')} (--source)` : ''
    reporter.message(
      'error',
      `restore: job "${job.name}" has no database source${named}; --into-database restores ${databaseKinds()} sources, use --to DIR for files`,
    )
    return 2
  }
  const uploads = args.intoLibrary ? uploadableSources(job.sources.filter((s) => args.sources.length === 0 || args.sources.includes(s.name))) : []
  if (args.intoLibrary && uploads.length === 0) {
    reporter.message('error', `restore: job "${job.name}" has no source restored by uploading into a library (--into-library)`)
    return 2
  }

  const limiter = readLimiterOf(args)
  const locations = await repositoryOf(opened, limiter ? { wrapStorage: (storage) => limiter.wrap(storage) } : {}).copies(args.snapshot)
  const first = locations.find((l): l is Found => !('missing' in l))
  const target = args.to ? resolve(args.to) : `database source(s) ${sources.map((s) => s.name).join(', ')}`
  const spec = { job: job.name, kind: 'restore' as const, snapshot: args.snapshot, target, ...(first && { totalBytes: 2 * first.snapshot.size }) }
  return runTask(reporter, spec, async (context) => {
    const say = (line: string) => context.log('info', line)
    context.meter.phase = 'verifying'
    let chosen: Found | undefined
    for (const location of locations) {
      const where = `storage "${location.repository.name}"`
      if ('missing' in location) {
        say(`${where}: ${location.missing}`)
        continue
      }
      context.meter.currentSource = location.repository.name
      const check = await location.snapshot.verify(taskReadOptions(job, context))
      // Cancelled mid-part: the read error it reports is the cancel, not a damaged copy.
      context.signal.throwIfAborted()
      if (check.ok) {
        say(`${where}: ${args.snapshot} verified (${check.partsChecked} part(s), ${check.bytes} bytes)`)
        chosen = location
        break
      }
      for (const problem of check.problems) context.log('error', `${where}: ${problem}`)
    }
    if (!chosen) throw new Error(`no storage holds an intact copy of ${args.snapshot}; nothing was restored`)

    context.meter.phase = 'restoring'
    const options = taskReadOptions(job, context)
    const keys: AgeKeys = { ...options.keys }
    // age (~200 ms to import) only for an identity file: openArchive loads it for encrypted snapshots alone.
    if (args.identity) keys.identities = (await import('../archive/ageStream.js')).parseIdentities(await readFile(args.identity, 'utf8'))
    try {
      const archive = await chosen.snapshot.openTar({ ...options, keys })
      if (args.to) {
        // The API's core (tasks/restoreFiles): unpacked next to the folder, moved into place at the end, so a
        // failed or interrupted restore leaves the folder as it was (and creates none).
        const to = resolve(args.to)
        await mkdir(dirname(to), { recursive: true })
        const parent = await realpath(dirname(to))
        const path = join(parent, basename(to))
        const existing = await lstat(path).catch(() => undefined)
        if (existing && !existing.isDirectory()) throw new Error(`${args.to} exists and is not a folder`)
        const folder = { path, parent, exists: existing !== undefined }
        const onEntry = (entry: string) => context.meter.file(entry)
        const result = await restoreFiles(archive, folder, { overwrite: args.force, signal: context.signal, onEntry })
        let summary = `restored ${result.files} file(s), ${result.directories} folder(s), ${result.links} link(s), ${result.bytes} bytes into ${args.to}`
        say(summary)
        if (uploads.length > 0) {
          context.meter.phase = 'uploading'
          const map = await uploadSources(uploads, {
            dir: path,
            ...(args.guidMap && { mapFile: resolve(args.guidMap) }),
            ...(args.libraryId !== undefined && { targetId: args.libraryId }),
            signal: context.signal,
            log: (level, line) => context.log(level, line),
          })
          summary += `; ${describeUploads(map, args.guidMap)}`
          say(summary)
        }
        return { summary, bytesWritten: result.bytes }
      }
      const restored = await restoreDatabases(archive, sources, { overwrite: args.force, signal: context.signal, log: say }, job.sources)
      const summary = `restored ${restored.length} database source(s)`
      say(summary)
      return { summary }
    } catch (err) {
      throw new Error(chosen.snapshot.explainReadError(err as Error).message, { cause: err })
    }
  })
}
