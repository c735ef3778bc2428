/**
 * @module tasks/verifyCopies
 * The one "verify the copies, take the intact ones" loop of verify, restore and drill: each copy's
 * `StoredSnapshot.verify` (every part's sha256 against the manifest; restic's check and a full read;
 * without a manifest a read to the end), logged per storage, every byte counted in the task's progress.
 * A cancel mid-part is the cancel, not a damaged copy. Each result is told to `onVerified` (the damage
 * ledger marks or clears the copy in the listing).
 */
import type { SnapshotRepository, StoredSnapshot, VerifyResult } from '../repository/types.js'
import type { TaskContext } from './TaskRunner.js'
import type { TaskReads } from './taskReads.js'

/** One repository's copy of a listed snapshot. */
export interface Located {
  repository: SnapshotRepository
  snapshot: StoredSnapshot
}

export interface VerifyCopiesOptions {
  /** Verify every copy (a verify task), or stop at the first intact one (a restore). */
  all: boolean
  /** Each copy's result, as it comes. */
  onVerified?(copy: Located, result: VerifyResult): void | Promise<void>
}

export interface VerifiedCopies {
  intact: Located[]
  /** `storage "x": problem; problem`, one per copy that failed. */
  problems: string[]
}

/** How a result was checked, in words (for the log). */
export function checkedBy(result: VerifyResult): string {
  return (
    result.checkedBy ??
    (result.sha256
      ? 'sha256 of every part matches the manifest'
      : `no checksum to compare (not written by this daemon): ${result.entries ?? 0} entries read to the end`)
  )
}

export async function verifyCopies(copies: readonly Located[], reads: TaskReads, context: TaskContext, options: VerifyCopiesOptions): Promise<VerifiedCopies> {
  const intact: Located[] = []
  const problems: string[] = []
  context.meter.phase = 'verifying'
  for (const copy of copies) {
    const where = `storage "${copy.repository.name}": ${copy.snapshot.view.name}`
    context.meter.currentSource = copy.repository.name
    const result = await copy.snapshot.verify(reads.options(context))
    context.signal.throwIfAborted()
    await options.onVerified?.(copy, result)
    if (result.ok) {
      context.log('info', `${where}: OK (${result.partsChecked} part(s), ${result.bytes} bytes; ${checkedBy(result)})`)
      intact.push(copy)
      if (!options.all) break
    } else {
      context.log('warn', `${where}: FAILED`)
      for (const problem of result.problems) context.log('error', `${where}: ${problem}`)
      problems.push(`storage "${copy.repository.name}": ${result.problems.join('; ')}`)
    }
  }
  return { intact, problems }
}
