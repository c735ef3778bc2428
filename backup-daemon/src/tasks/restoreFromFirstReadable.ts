/**
 * @module tasks/restoreFromFirstReadable
 * A restore whose read is its check (`PreparedRestore.checksAsItReads`): the copies are tried in order, a
 * copy the listing shows damaged refused unread (as a verify refuses it); a copy whose bytes fail
 * (`UnreadableCopyError`: the target is as it was) is logged per storage and the next one is tried. Any other failure (the target refused, a move
 * that failed, a cancel) ends the restore: another copy would meet the same target.
 */
import type { TaskContext, TaskOutcome } from './TaskRunner.js'
import { UnreadableCopyError } from './restoreFiles.js'
import type { Located } from './verifyCopies.js'

export async function restoreFromFirstReadable(
  copies: readonly Located[],
  restore: (copy: Located) => Promise<TaskOutcome>,
  context: Pick<TaskContext, 'log' | 'meter' | 'signal'>,
): Promise<TaskOutcome> {
  const problems: string[] = []
  for (const copy of copies) {
    const where = `storage "${copy.repository.name}": ${copy.snapshot.view.name}`
    // Listed as damaged (a part missing, a verify that failed): not read, as its verify would not.
    if (copy.snapshot.view.damaged) {
      const why = `damaged: ${copy.snapshot.view.damageReason ?? 'incomplete'}`
      context.log('warn', `${where}: FAILED: ${why}`)
      problems.push(`storage "${copy.repository.name}": ${why}`)
      continue
    }
    context.meter.phase = 'restoring'
    context.meter.currentSource = copy.repository.name
    context.log('info', `restoring from ${where}, each part checked as it is read`)
    try {
      return await restore(copy)
    } catch (err) {
      context.signal.throwIfAborted()
      if (!(err instanceof UnreadableCopyError)) throw err
      context.log('warn', `${where}: FAILED: ${err.message}`)
      problems.push(`storage "${copy.repository.name}": ${err.message}`)
    }
  }
  throw new Error(`no storage holds an intact copy of ${copies[0]?.snapshot.view.name ?? 'the snapshot'}: ${problems.join(' | ')}`)
}
