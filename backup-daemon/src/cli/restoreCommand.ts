/**
 * @module cli/restoreCommand
 * `backup-daemon restore JOB SNAPSHOT --config FILE --to DIR` unpacks a snapshot into a folder;
 * `--into-database` restores the job's database sources (`sqlite`, `postgresql`, `mongodb`, or only
 * those named by `--source`) where they read from. Either way the snapshot's parts are verified against
 * the manifest first (a storage whose copy fails is skipped for the next one holding the snapshot),
 * then decrypted (the job's passphrase or openssl password, or `--identity FILE` for age recipients) and
 * decompressed; files are unpacked next to `--to` and moved into place at the end (`tasks/restoreFiles`).
 * A snapshot without a manifest (the original service's) is first read to its end
 * (decrypted, decompressed, every entry), so a truncated one, a split set missing a part or a wrong
 * password is refused before anything is written.
 */
import { lstat, mkdir, readFile, realpath } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import type { AgeKeys } from '../archive/ageStream.js'
import { locateSnapshots, type LocatedSnapshot } from '../snapshot/locateSnapshots.js'
import { describeReadError, openArchive } from '../snapshot/openArchive.js'
import { databaseTypes, restoreDatabases } from '../snapshot/restoreDatabases.js'
import { verifySnapshot } from '../snapshot/verifySnapshot.js'
import { restoreFiles } from '../tasks/restoreFiles.js'
import { nextSignal } from './output.js'
import { archiveKeys, openJob, type JobContext } from './snapshotCommand.js'

export interface RestoreArgs {
  file: string
  job: string
  snapshot: string
  to?: string
  intoDatabase: boolean
  sources: string[]
  storage?: string
  identity?: string
  force: boolean
}

const say = (line: string) => process.stdout.write(`${line}\n`)

export async function restoreCommand(args: RestoreArgs): Promise<number> {
  if (Boolean(args.to) === args.intoDatabase) {
    process.stderr.write('restore: give either --to DIR (files) or --into-database\n')
    return 2
  }
  const opened = await openJob(args.file, args.job, args.storage)
  if (typeof opened === 'number') return opened
  return restoreIn(opened, args)
}

/** The restore with the job and its storages at hand (the CLI loads them from the config file). */
export async function restoreIn(opened: JobContext, args: Omit<RestoreArgs, 'file' | 'job' | 'storage'>): Promise<number> {
  const { job } = opened
  const controller = new AbortController()
  void nextSignal().then((signal) => controller.abort(new Error(`${signal}: restore interrupted`)))

  const sources = job.sources.filter(
    (s) =>
      (databaseTypes as readonly string[]).includes(s.type) && !(s.type === 'redis' && !s.path) && (args.sources.length === 0 || args.sources.includes(s.name)),
  )
  if (args.intoDatabase && sources.length === 0) {
    process.stderr.write(
      `restore: job "${job.name}" has no database source${args.sources.length ? ` named ${args.sources.join(', ')}` : ''} (sqlite, postgresql, mongodb, mysql, mariadb, redis with a path)\n`,
    )
    return 2
  }

  let chosen: LocatedSnapshot | undefined
  for (const location of await locateSnapshots(job.name, opened.storages, args.snapshot)) {
    const where = `storage "${location.storage.name}"`
    if ('missing' in location) {
      say(`${where}: ${location.missing}`)
      continue
    }
    const check = await verifySnapshot(location, controller.signal, archiveKeys(job))
    if (check.ok) {
      say(`${where}: ${args.snapshot} verified (${check.partsChecked} part(s), ${check.bytes} bytes)`)
      chosen = location
      break
    }
    for (const problem of check.problems) process.stderr.write(`${where}: ${problem}\n`)
  }
  if (!chosen) {
    process.stderr.write(`restore: no storage holds an intact copy of ${args.snapshot}\n`)
    return 1
  }

  const options = archiveKeys(job)
  const keys: AgeKeys = { ...options.keys }
  // age (~200 ms to import) only for an identity file: openArchive loads it for encrypted snapshots alone.
  if (args.identity) keys.identities = (await import('../archive/ageStream.js')).parseIdentities(await readFile(args.identity, 'utf8'))
  try {
    const archive = await openArchive(chosen, { ...options, keys, signal: controller.signal })
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
      const result = await restoreFiles(archive, folder, { overwrite: args.force, signal: controller.signal })
      say(`restored ${result.files} file(s), ${result.directories} folder(s), ${result.links} link(s), ${result.bytes} bytes into ${args.to}`)
    } else {
      const restored = await restoreDatabases(archive, sources, { overwrite: args.force, signal: controller.signal, log: say }, job.sources)
      say(`restored ${restored.length} database source(s)`)
    }
    return 0
  } catch (err) {
    process.stderr.write(`restore failed: ${describeReadError(chosen, err as Error).message}\n`)
    return controller.signal.aborted ? 130 : 1
  }
}
