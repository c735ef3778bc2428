/**
 * @module cli/drillCommand
 * `backup-daemon drill JOB --config FILE [--storage NAME]`: a restore drill of the job's newest snapshot
 * on every storage (or the one named): verified, restored into a scratch folder under the daemon's data
 * folder (`<dataDir>/drills/`) and compared with the record the backup wrote (`tasks/drillTask`). Runs as a
 * task (`runTask`): live progress, log lines, a `drill` record at the end (`--json`). The scratch folders of
 * drills that were killed (their process gone) are removed first. Exit 0 when the restore is proven on
 * every storage; 1 naming what differed (file, table, part) or a storage without a snapshot.
 */
import { loadConfig } from '../config/loadConfig.js'
import { sweepDrillScratch } from '../restore/drill/drillScratch.js'
import { drillCopies, drilledNames, drillTotalBytes } from '../tasks/drillTask.js'
import { readLimiterOf, runTask, type CliTaskOptions } from './runTask.js'
import { openJob, repositoryOf } from './snapshotCommand.js'
import type { Reporter } from './terminal/Reporter.js'

export async function drillCommand(file: string, name: string, storage: string | undefined, reporter: Reporter, options: CliTaskOptions = {}): Promise<number> {
  const opened = await openJob(file, name, storage, 'drill')
  if (typeof opened === 'number') return opened
  const { dataDir } = await loadConfig(file)
  for (const swept of await sweepDrillScratch(dataDir))
    reporter.message('warn', `removed ${swept}, the scratch folder of a drill that did not finish (killed?)`)
  const limiter = readLimiterOf(options)
  const copies = await repositoryOf(opened, limiter ? { wrapStorage: (s) => limiter.wrap(s) } : {}).copies()
  const spec = { job: name, kind: 'drill' as const, snapshot: drilledNames(copies), totalBytes: drillTotalBytes(copies) }
  return runTask(reporter, spec, (context) => drillCopies({ job: opened.job, dataDir, copies }, context))
}
