/**
 * @module repository/restic/cleanUpFailedWrite
 * What a failed run wrote into a restic repository goes with it (issue 39 #5). A restic backup that fails
 * half-way (a full disk, a source that broke off, a backend that went away) leaves the packs it uploaded:
 * no snapshot names them, restic's index may not list them, and on a full disk the next run fails again
 * for want of the very space they hold. So right after the failure, before the error is reported:
 * - the run's snapshots without a commit are forgotten with `forget --prune` (`removeLeftovers`, as the next
 *   run would), which also deletes every pack no snapshot uses;
 * - when it left no snapshot, `prune --max-unused unlimited` deletes the unused packs and repacks nothing
 *   (the cheapest prune: nothing is rewritten, so it works on a full disk too).
 * Both take restic's exclusive lock, waiting for another writer of a shared repository as every exclusive
 * command does, and only after this host's dead locks are removed. A cancelled run (a stop, a cancel) is
 * not cleaned up here: the next run's leftover sweep and the next retention's prune are. When the clean-up
 * itself fails, the run's error says what is left and which command removes it.
 */
import { redactSecrets } from '../../logs/redactSecrets.js'
import type { WriteRun } from '../types.js'
import { describeForeignLocks, removeOwnDeadLocks } from './resticLocks.js'
import type { ResticRepository } from './resticRepository.js'
import { resticLocked } from './resticSession.js'

const message = (err: unknown) => (err instanceof Error ? err.message : String(err))

/** Removes what the failed write left in `repository`, then rethrows `error` (extended when that failed). */
export async function cleanUpFailedWrite(repository: ResticRepository, run: Pick<WriteRun, 'signal' | 'log'>, error: unknown): Promise<never> {
  if (run.signal.aborted) throw error
  const name = `restic "${repository.name}"`
  run.log('warn', `${name}: the write failed; removing what it had written`)
  try {
    const forgotten = await repository.removeLeftovers()
    if (forgotten) {
      run.log('info', `${name}: forgot the failed run's ${forgotten} snapshot(s) and pruned the data no snapshot uses`)
    } else {
      const { foreign } = await removeOwnDeadLocks(repository.target, run.signal)
      if (foreign.length) throw new Error(describeForeignLocks(foreign))
      const out = await resticLocked(repository.target, ['prune', '--max-unused', 'unlimited'], { signal: run.signal })
      const freed = /total prune:\s+\d+ blobs \/ ([\d.]+ \w+)/.exec(out)?.[1]
      run.log('info', `${name}: pruned the data the failed run wrote (${freed ?? 'restic said nothing of its size'})`)
    }
  } catch (cleanup) {
    if (run.signal.aborted) throw error
    const command = `restic -r ${redactSecrets(repository.target.repository)} prune`
    const text = `${message(error)}; what the run wrote may still be in ${name} (removing it failed: ${message(cleanup)}); once the cause is fixed (e.g. space freed), run \`${command}\``
    // The run failed for `error`, its cause; the clean-up's own failure is told in the text.
    /* eslint-disable-next-line preserve-caught-error */
    throw new Error(text, { cause: error })
  }
  throw error
}
