/**
 * @module repository/restic/earlyCommit
 * The commit snapshot started before the sources are backed up, when the run will most likely look like
 * the previous one (every source a folder with a parent of known size): restic derives the repository
 * key (~0.3 s of CPU) and loads the index while the folders are scanned, then waits on its stdin. Once
 * the sources are done and their sizes are the ones its tags announced, the run's record goes to its
 * stdin and it saves the commit; otherwise it is interrupted before it read a byte (restic saves no
 * snapshot then) and the commit is written the usual way. The commit is still saved after every source,
 * except when the daemon dies: restic then reads the end of its stdin and saves it at once, so a commit
 * counts only with every source snapshot it names (`resticRuns.groupRuns`); else the run is a leftover.
 */
import { PassThrough } from 'node:stream'
import { restic, type ResticTarget } from './resticProcess.js'

export interface EarlyCommit {
  /** The tags it was started with (the run's commit tags as predicted). */
  readonly tags: string[]
  /** Hands the run's record over; resolves with restic's output once the commit is saved. */
  finish(record: Buffer): Promise<string>
  /** Stops it without a snapshot (a prediction that did not hold, a failed run). */
  cancel(): Promise<void>
}

export function earlyCommit(target: ResticTarget, args: string[], tags: string[], signal: AbortSignal): EarlyCommit {
  const stdin = new PassThrough()
  const stop = new AbortController()
  const done = restic(target, args, { signal: AbortSignal.any([signal, stop.signal]), stdin })
  // Settled by `finish` or `cancel`; a failure before then (a lock) is seen there.
  done.catch(() => {})
  let settled = false
  return {
    tags,
    finish(record) {
      settled = true
      stdin.end(record)
      return done
    },
    async cancel() {
      if (settled) return
      settled = true
      stop.abort(new Error('the early commit was not needed'))
      await done.catch(() => {})
    },
  }
}
