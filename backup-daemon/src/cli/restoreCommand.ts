/**
 * @module cli/restoreCommand
 * `backup-daemon restore JOB SNAPSHOT --config FILE --to DIR` unpacks a snapshot into a folder;
 * `--into-database` restores the job's database sources (`sqlite`, `postgresql`, `mongodb`, or only
 * those named by `--source`) where they read from. Either way the snapshot's parts are verified against
 * the manifest first (a storage whose copy fails is skipped for the next one holding the snapshot),
 * then decrypted (the job's passphrase, or `--identity FILE` for recipients) and decompressed.
 */
import { readFile } from 'node:fs/promises'
import { parseIdentities, type AgeKeys } from '../archive/ageStream.js'
import { extractTo } from '../snapshot/extractTo.js'
import { locateSnapshots, type LocatedSnapshot } from '../snapshot/locateSnapshots.js'
import { openArchive } from '../snapshot/openArchive.js'
import { databaseTypes, restoreDatabases } from '../snapshot/restoreDatabases.js'
import { verifySnapshot } from '../snapshot/verifySnapshot.js'
import { nextSignal } from './output.js'
import { openJob } from './snapshotCommand.js'

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
  const { job } = opened
  const controller = new AbortController()
  void nextSignal().then((signal) => controller.abort(new Error(`${signal}: restore interrupted`)))

  const sources = job.sources.filter((s) => (databaseTypes as readonly string[]).includes(s.type) && !(s.type === 'redis' && !s.path) && (args.sources.length === 0 || args.sources.includes(s.name)))
  if (args.intoDatabase && sources.length === 0) {
    process.stderr.write(`restore: job "${job.name}" has no database source${args.sources.length ? ` named ${args.sources.join(', ')}` : ''} (sqlite, postgresql, mongodb, mysql, mariadb, redis with a path)\n`)
    return 2
  }

  let chosen: LocatedSnapshot | undefined
  for (const location of await locateSnapshots(job.name, opened.storages, args.snapshot)) {
    const where = `storage "${location.storage.name}"`
    if ('missing' in location) {
      say(`${where}: ${location.missing}`)
      continue
    }
    const check = await verifySnapshot(location, controller.signal)
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

  const keys: AgeKeys = {}
  if (job.encryption?.passphrase !== undefined) keys.passphrase = job.encryption.passphrase
  if (args.identity) keys.identities = parseIdentities(await readFile(args.identity, 'utf8'))
  try {
    const archive = await openArchive(chosen, { keys, signal: controller.signal })
    if (args.to) {
      const result = await extractTo(archive, args.to, { overwrite: args.force, signal: controller.signal })
      say(`restored ${result.files} file(s), ${result.directories} folder(s), ${result.links} link(s), ${result.bytes} bytes into ${args.to}`)
    } else {
      const restored = await restoreDatabases(archive, sources, { overwrite: args.force, signal: controller.signal, log: say })
      say(`restored ${restored.length} database source(s)`)
    }
    return 0
  } catch (err) {
    process.stderr.write(`restore failed: ${(err as Error).message}\n`)
    return controller.signal.aborted ? 130 : 1
  }
}
