/**
 * @module tasks/drillTask
 * The work of a restore drill task (kind `drill`), shared by the API (`createJobTasks`) and the CLI
 * (`cli/drillCommand`): for the newest snapshot of each storage chosen, verify the stored bytes (each part's
 * sha256), then restore it into a scratch folder (`restore/drill/drillScratch`: free space checked first,
 * removed afterwards whatever happens) and compare what was restored with the record the backup wrote
 * (`restore/drill/drillSnapshot`). Fails naming the storage and the first differences (file, table, part).
 */
import type { JobConfig } from '../config/types.js'
import type { SnapshotCopy } from '../repository/jobRepository.js'
import type { VerifyResult } from '../repository/types.js'
import { createDrillScratch } from '../restore/drill/drillScratch.js'
import { drillSnapshot } from '../restore/drill/drillSnapshot.js'
import { directRestoreOf } from './directRestore.js'
import type { TaskReads } from './taskReads.js'
import type { TaskContext, TaskOutcome } from './TaskRunner.js'
import { verifyCopies, type Located } from './verifyCopies.js'

export interface DrillWork {
  job: JobConfig
  /** The daemon's data folder: the scratch space goes in `<dataDir>/drills/`. */
  dataDir: string
  /** The newest snapshot of each storage chosen (or why a storage has none). */
  copies: readonly SnapshotCopy[]
  reads: TaskReads
  /** Each copy's verify result (the damage ledger). */
  noteVerified?(copy: Located, result: VerifyResult): void
}

/** How many differences a failure message names (the log lists more). */
const shownInMessage = 5
const loggedPerCopy = 50

/** The progress total: every copy is read twice (verified, then restored). */
export const drillTotalBytes = (copies: readonly SnapshotCopy[]): number => copies.reduce((sum, c) => sum + ('missing' in c ? 0 : 2 * c.snapshot.size), 0)

/**
 * The files a drill counts, where the backups' counts are known (`filesOf`: a snapshot's backup record):
 * every file twice, unpacked, then read back and compared. Undefined when a copy's is not known (its
 * drill then learns it from the record once unpacked).
 */
export function drillTotalFiles(copies: readonly SnapshotCopy[], filesOf: (snapshot: string) => number | undefined): number | undefined {
  let total = 0
  for (const copy of copies) {
    if ('missing' in copy) continue
    const files = filesOf(copy.snapshot.view.name)
    if (files === undefined) return undefined
    total += 2 * files
  }
  return total || undefined
}

/** The snapshot name(s) a drill reads, for the task's `snapshot`. */
export const drilledNames = (copies: readonly SnapshotCopy[]): string =>
  [...new Set(copies.flatMap((c) => ('missing' in c ? [] : [c.snapshot.view.name])))].join(', ') || 'newest'

/**
 * Proves each copy restores; fails when one differs, is damaged or cannot be read. A copy with nothing to
 * compare with (a snapshot without a record: a zip, the original service's) is not proven, which is not a
 * failure: the summary says which and why, and so does the record (`notProven`).
 */
export async function drillCopies({ job, dataDir, copies, reads, noteVerified }: DrillWork, context: TaskContext): Promise<TaskOutcome> {
  const { signal, meter, log } = context
  const problems: string[] = []
  const proven: string[] = []
  const notProven: string[] = []
  for (const copy of copies) {
    const where = `storage "${copy.repository.name}"`
    if ('missing' in copy) {
      log('error', `${where}: ${copy.missing}`)
      problems.push(`${where}: ${copy.missing}`)
      continue
    }
    const { snapshot } = copy
    const what = `${where}: ${snapshot.view.name}`
    const { intact, problems: damaged } = await verifyCopies([copy], reads, context, { all: true, ...(noteVerified && { onVerified: noteVerified }) })
    if (intact.length === 0) {
      problems.push(`${what}: damaged, not restored: ${damaged.join('; ')}`)
      continue
    }
    log('info', `${what}: verified; restoring into a scratch folder`)
    meter.phase = 'restoring'
    meter.currentSource = copy.repository.name
    const scratch = await createDrillScratch(dataDir, snapshot.size)
    try {
      // The repository's own restorer where the copy's listing allows it (restic's, as a restore would take), else the tar;
      // the file count comes back with the comparison's.
      const restorer = await directRestoreOf(snapshot, reads.options(context), context, `${what}: `)
      const outcome = await drillSnapshot({
        openTar: () => snapshot.openTar(reads.options(context)),
        ...(restorer && { restorer }),
        ...(snapshot.listedFiles && { listedFiles: () => snapshot.listedFiles!(reads.options(context)) }),
        sources: job.sources,
        scratch: scratch.dir,
        databaseServer: job.drill?.databaseServer ?? 'configured',
        ...(job.drill?.cms && { cms: job.drill.cms }),
        signal,
        log: (level, message) => log(level, `${what}: ${message}`),
        onEntry: (name) => meter.file(name),
        // Known exactly now: what is left is reading back that many files (at least; another copy may follow).
        onComparing: (files) => (meter.totalFiles = Math.max(meter.totalFiles ?? 0, meter.filesRead + files)),
      })
      if (outcome.unproven) {
        log('warn', `${what}: not proven: ${outcome.unproven}`)
        notProven.push(`${what}: ${outcome.unproven}`)
      } else if (outcome.differences.length === 0) {
        log('info', `${what}: restore proven: ${outcome.summary}`)
        proven.push(`${what}: ${outcome.summary}`)
      } else {
        for (const difference of outcome.differences.slice(0, loggedPerCopy)) log('error', `${what}: ${difference}`)
        const more = outcome.differences.length > shownInMessage ? `, and ${outcome.differences.length - shownInMessage} more` : ''
        problems.push(`${what}: ${outcome.differences.length} difference(s): ${outcome.differences.slice(0, shownInMessage).join('; ')}${more}`)
      }
    } catch (err) {
      if (signal.aborted) throw signal.reason
      const message = snapshot.explainReadError(err as Error).message
      log('error', `${what}: the restore failed: ${message}`)
      problems.push(`${what}: the restore failed: ${message}`)
    } finally {
      await scratch.remove()
    }
  }
  if (problems.length > 0) throw new Error(problems.join(' | '))
  const parts = [
    ...(proven.length ? [`restore proven on ${proven.length} storage(s): ${proven.join(' | ')}`] : []),
    ...(notProven.length ? [`not proven on ${notProven.length} storage(s): ${notProven.join(' | ')}`] : []),
  ]
  return { summary: parts.join('; '), ...(notProven.length && { notProven }) }
}
