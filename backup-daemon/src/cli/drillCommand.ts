/**
 * @module cli/drillCommand
 * `backup-daemon drill JOB --config FILE [--storage NAME]`: the daemon's drill task (`runTask`): the job's
 * newest snapshot on every storage (or the one named) verified, restored into a scratch folder under the
 * daemon's data folder (`<dataDir>/drills/`, swept at the start when a killed drill left one) and compared
 * with what the backup recorded (`tasks/drillTask`). Exit 0 when the restore is proven (a copy with nothing
 * to compare with is reported as not proven, not as a failure); 1 naming what differed (file, table, part)
 * or a storage without a snapshot.
 */
import { sweepDrillScratch } from '../restore/drill/drillScratch.js'
import { runTask, type CliTaskOptions } from './runTask.js'
import { openJob } from './snapshotCommand.js'
import type { Reporter } from './terminal/Reporter.js'

export async function drillCommand(file: string, name: string, storage: string | undefined, reporter: Reporter, options: CliTaskOptions = {}): Promise<number> {
  const opened = await openJob(file, name, storage, 'drill')
  if (typeof opened === 'number') return opened
  // Swept here too (the daemon's start sweeps them into its own log): the operator sees what was removed.
  for (const swept of await sweepDrillScratch(opened.config.dataDir))
    reporter.message('warn', `removed ${swept}, the scratch folder of a drill that did not finish (killed?)`)
  return runTask(opened.config, name, 'drill', (tasks) => tasks.drill(name, storage, 'cli'), reporter, options)
}
