/**
 * @module cli/verifyCommand
 * `backup-daemon verify JOB [SNAPSHOT] --config FILE [--storage NAME]`: re-reads the snapshot (the
 * newest when not named) from every storage of the job and checks every part against the manifest's
 * sha256; a snapshot without a manifest (the original service's) is decrypted and read to its end.
 * Exit 0 when every copy is intact; 1 naming each bad part (or a storage lacking the snapshot).
 */
import { locateSnapshots } from '../snapshot/locateSnapshots.js'
import { verifySnapshot } from '../snapshot/verifySnapshot.js'
import { nextSignal } from './output.js'
import { archiveKeys, openJob, type JobContext } from './snapshotCommand.js'

export async function verifyCommand(file: string, name: string, snapshot: string | undefined, storage?: string): Promise<number> {
  const opened = await openJob(file, name, storage)
  if (typeof opened === 'number') return opened
  return verifyIn(opened, snapshot)
}

/** The verification with the job and its storages at hand (the CLI loads them from the config file). */
export async function verifyIn(opened: JobContext, snapshot: string | undefined): Promise<number> {
  const name = opened.job.name
  const controller = new AbortController()
  void nextSignal().then((signal) => controller.abort(new Error(`${signal}: verify interrupted`)))
  let failed = 0
  for (const location of await locateSnapshots(name, opened.storages, snapshot)) {
    const where = `storage "${location.storage.name}"`
    if ('missing' in location) {
      process.stderr.write(`${where}: ${location.missing}\n`)
      failed++
      continue
    }
    const result = await verifySnapshot(location, controller.signal, archiveKeys(opened.job))
    const what = `${where}: ${location.entry.view.name}`
    if (result.ok) {
      const checked = location.manifest
        ? `sha256 ${location.manifest.sha256}`
        : `no checksum to compare (not written by this daemon): ${result.entries ?? 0} entries read to the end`
      process.stdout.write(`${what}: OK (${result.partsChecked} part(s), ${result.bytes} bytes, ${checked})\n`)
    } else {
      failed++
      process.stdout.write(`${what}: FAILED\n`)
      for (const problem of result.problems) process.stderr.write(`${what}: ${problem}\n`)
    }
  }
  return failed === 0 ? 0 : 1
}
