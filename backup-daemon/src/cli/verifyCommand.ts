/**
 * @module cli/verifyCommand
 * `backup-daemon verify JOB [SNAPSHOT] --config FILE [--storage NAME]`: the daemon's verify task
 * (`runTask`): the snapshot (the newest of each storage when not named) re-read from every storage of the
 * job holding it (or the one named), every part against the manifest's sha256; a snapshot without a
 * manifest (the original service's) decrypted and read to its end. A copy that fails is shown damaged in
 * the listing until a later verify passes. Exit 0 when every copy is intact; 1 naming each bad part (or a
 * storage that cannot be read, or no storage holding the snapshot).
 */
import type { DaemonConfig } from '../config/types.js'
import { runTask, type CliTaskOptions } from './runTask.js'
import { openJob } from './snapshotCommand.js'
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
  return verifyIn(opened.config, name, snapshot, storage, reporter, options)
}

/** The verification with the config at hand (the CLI loads it from the file). */
export function verifyIn(
  config: DaemonConfig,
  job: string,
  snapshot: string | undefined,
  storage: string | undefined,
  reporter: Reporter,
  options: CliTaskOptions = {},
): Promise<number> {
  return runTask(config, job, 'verify', (tasks) => tasks.verify(job, snapshot, 'cli', { ...(storage !== undefined && { storage }) }), reporter, options)
}
