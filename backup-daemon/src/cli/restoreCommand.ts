/**
 * @module cli/restoreCommand
 * `backup-daemon restore JOB SNAPSHOT --config FILE` and one of:
 * - `--to DIR`: the files unpacked into any folder the operator names (next to it, moved into place at the
 *   end: `tasks/restoreFiles`); `--into-library` then uploads the job's video library sources from it,
 *   old id → new id to `--guid-map FILE` (default `DIR/guid-map.json`);
 * - `--into-database`: the job's database sources (or those `--source` names) put back where they read from;
 * - `--into-database NAME`: one database source (`--source`, or the job's only one that fits) into the
 *   database `NAME` of `restore.databases`, as the UI's restore dialog does.
 * It is the daemon's restore task (`runTask`): the copies verified first (a damaged one is skipped for the
 * next storage holding the snapshot), then decrypted (the job's keys, or `--identity FILE` for age
 * recipients), decompressed and restored; a history record at the end.
 */
import { readFile } from 'node:fs/promises'
import type { JobConfig } from '../config/types.js'
import { restoreOf } from '../restore/restoreDatabases.js'
import { sourceFactory } from '../sources/all.js'
import type { OperatorRestoreTarget, RestoreTarget } from '../tasks/TaskView.js'
import { runTask, type CliTaskOptions } from './runTask.js'
import { openJob, type JobContext } from './snapshotCommand.js'
import type { Reporter } from './terminal/Reporter.js'

export interface RestoreArgs extends CliTaskOptions {
  file: string
  job: string
  snapshot: string
  to?: string
  /** `--into-database`: true (in place), or the name of a `restore.databases` entry. */
  intoDatabase: boolean | string
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
  const usage = (text: string) => {
    reporter.message('error', `restore: ${text}`)
    return 2
  }
  if ((args.intoLibrary && !args.to) || ((args.libraryId !== undefined || args.guidMap) && !args.intoLibrary)) {
    return usage('--into-library goes with --to DIR (the videos are uploaded from there); --library-id and --guid-map go with --into-library')
  }
  if (Boolean(args.to) === Boolean(args.intoDatabase)) {
    return usage(
      'give either --to DIR (unpack the files into a folder), --into-database (restore the database sources in place) or --into-database NAME (into a database of restore.databases)',
    )
  }
  const opened = await openJob(args.file, args.job, args.storage, 'restore')
  if (typeof opened === 'number') return opened
  return restoreIn(opened, args, reporter)
}

/** The restore with the config and job at hand (the CLI loads them from the file). */
export async function restoreIn(opened: JobContext, args: Omit<RestoreArgs, 'file' | 'job'>, reporter: Reporter): Promise<number> {
  const target = targetOf(opened.job, args)
  if (typeof target === 'string') {
    reporter.message('error', `restore: ${target}`)
    return 2
  }
  // age (~200 ms to import) only for an identity file.
  const identities = args.identity ? (await import('../archive/ageStream.js')).parseIdentities(await readFile(args.identity, 'utf8')) : undefined
  const scope = { ...(args.storage !== undefined && { storage: args.storage }), ...(identities && { identities }) }
  return runTask(opened.config, opened.job.name, 'restore', (tasks) => tasks.restore(opened.job.name, args.snapshot, target, 'cli', scope), reporter, args)
}

/** The task's target from the flags, or what is wrong with them. */
function targetOf(job: JobConfig, args: Omit<RestoreArgs, 'file' | 'job'>): RestoreTarget | OperatorRestoreTarget | string {
  const overwrite = args.force
  if (args.to) {
    return {
      kind: 'folder',
      path: args.to,
      overwrite,
      ...(args.intoLibrary && { intoLibrary: true }),
      ...(args.libraryId !== undefined && { libraryId: args.libraryId }),
      ...(args.guidMap && { guidMap: args.guidMap }),
    }
  }
  if (args.intoDatabase === true) return { kind: 'in-place', sources: args.sources, overwrite }
  const database = args.intoDatabase as string
  const candidates = job.sources.filter((s) => restoreOf(s)?.into && (args.sources.length === 0 || args.sources.includes(s.name)))
  if (candidates.length === 1) return { kind: 'database', source: candidates[0]!.name, database, overwrite }
  const listed = job.sources.filter((s) => sourceFactory(s.type)?.restore?.into).map((s) => `${s.name} (${s.type})`)
  return candidates.length === 0
    ? `--into-database ${database}: job "${job.name}" has no database source${args.sources.length ? ` named ${args.sources.join(', ')}` : ''} that restores into another database (${listed.join(', ') || 'none'})`
    : `--into-database ${database}: which source? name one with --source (${listed.join(', ')})`
}
