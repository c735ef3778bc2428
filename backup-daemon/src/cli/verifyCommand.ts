/**
 * @module cli/verifyCommand
 * `backup-daemon verify JOB [SNAPSHOT] --config FILE [--storage NAME]`: re-reads the snapshot (the
 * newest when not named) from every storage of the job and checks every part against the manifest's
 * sha256; a snapshot without a manifest (the original service's) is decrypted and read to its end.
 * Runs as a task (`runTask`): live progress, log lines, a history record at the end.
 * Exit 0 when every copy is intact; 1 naming each bad part (or a storage lacking the snapshot).
 */
import { readLimiterOf, runTask, taskReadOptions, type CliTaskOptions } from './runTask.js'
import { openJob, repositoryOf, type JobContext } from './snapshotCommand.js'
import { inProcessReporter } from './terminal/inProcessReporter.js'
import type { Reporter } from './terminal/Reporter.js'

export async function verifyCommand(
  file: string,
  name: string,
  snapshot: string | undefined,
  storage: string | undefined,
  reporter: Reporter,
  options: CliTaskOptions = {},
): Promise<number> {
  const opened = await openJob(file, name, storage, 'verify')
  if (typeof opened === 'number') return opened
  return verifyIn(opened, snapshot, reporter, options)
}

/** The verification with the job and its storages at hand (the CLI loads them from the config file). */
export async function verifyIn(
  opened: JobContext,
  snapshot: string | undefined,
  reporter: Reporter = inProcessReporter(),
  options: CliTaskOptions = {},
): Promise<number> {
  const name = opened.job.name
  const limiter = readLimiterOf(options)
  const locations = await repositoryOf(opened, limiter ? { wrapStorage: (storage) => limiter.wrap(storage) } : {}).copies(snapshot)
  const found = locations.flatMap((l) => ('missing' in l ? [] : [l.snapshot]))
  const names = [...new Set(found.map((s) => s.view.name))]
  const spec = {
    job: name,
    kind: 'verify' as const,
    snapshot: snapshot ?? (names.join(', ') || 'newest'),
    totalBytes: found.reduce((sum, s) => sum + s.size, 0),
  }
  return runTask(reporter, spec, async (context) => {
    context.meter.phase = 'verifying'
    let failed = 0
    for (const location of locations) {
      const where = `storage "${location.repository.name}"`
      if ('missing' in location) {
        context.log('error', `${where}: ${location.missing}`)
        failed++
        continue
      }
      context.meter.currentSource = location.repository.name
      const result = await location.snapshot.verify(taskReadOptions(opened.job, context))
      // Cancelled mid-part: the read error it reports is the cancel, not a damaged copy.
      context.signal.throwIfAborted()
      const what = `${where}: ${location.snapshot.view.name}`
      if (result.ok) {
        const checked = result.checkedBy
          ? result.checkedBy
          : result.sha256
            ? `sha256 ${result.sha256}`
            : `no checksum to compare (not written by this daemon): ${result.entries ?? 0} entries read to the end`
        context.log('info', `${what}: OK (${result.partsChecked} part(s), ${result.bytes} bytes, ${checked})`)
      } else {
        failed++
        context.log('warn', `${what}: FAILED`)
        for (const problem of result.problems) context.log('error', `${what}: ${problem}`)
      }
    }
    if (failed > 0) throw new Error(`${failed} of ${locations.length} storage(s) without an intact copy`)
    return { summary: `${locations.length} storage(s) hold an intact copy` }
  })
}
