/**
 * @module tasks/directRestore
 * The repository's own restorer for a copy (restic's), where the snapshot's listing allows it, for a restore
 * and a drill alike: the task's log says which path the copy takes and why, and a restorer that counts no
 * files (its bytes written are the progress) drops the file count that would hold the percent back.
 */
import type { DirectRestore, ReadOptions, StoredSnapshot } from '../repository/types.js'
import type { TaskContext } from './TaskRunner.js'

/** The restorer, or undefined when the copy takes the tar path (`prefix` starts each log line). */
export async function directRestoreOf(
  snapshot: StoredSnapshot,
  options: ReadOptions,
  { meter, log }: Pick<TaskContext, 'meter' | 'log'>,
  prefix = '',
): Promise<DirectRestore | undefined> {
  const direct = await snapshot.directRestore?.(options)
  if (!direct) return undefined
  if ('because' in direct) {
    log('info', `${prefix}restoring through the tar path: ${direct.because}`)
    return undefined
  }
  log('info', `${prefix}restoring with ${direct.by}`)
  meter.totalFiles = undefined
  return direct
}
