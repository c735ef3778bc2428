/**
 * @module tasks/restoreJournal
 * What a killed restore leaves behind is put right at the next start. A file restore writes a journal
 * (`<dataDir>/restores/<id>.json`) when it begins unpacking into its temporary folder and updates it
 * when it begins moving the restored files into the target (the merge, checked for conflicts first).
 * The journal is removed when the restore ends, whatever the outcome.
 *
 * At start (`recoverRestores`), a journal whose process is gone means that process was killed:
 * - killed while unpacking: the target was never touched; the temporary folder is removed;
 * - killed during the merge: the merge is completed (its conflicts were already checked, so the rest of
 *   the moves are what the restore had decided to do), then the temporary folder is removed;
 * and the task goes into the run history as failed, saying which of the two happened. The target's
 * parent is reached again from its restore root without following links (`tasks/heldFolder`).
 */
import { randomBytes } from 'node:crypto'
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { chmod, lstat, rename } from 'node:fs/promises'
import { join } from 'node:path'
import type { RunHistory, RunRecord } from '../runs/history.js'
import { runRecordId } from '../runs/runRecordId.js'
import { removeTree } from '../restore/removeTree.js'
import { holdBelow, moveInto } from './heldFolder.js'

export interface RestoreJournalEntry {
  id: string
  /** The restore task's id: its record's (absent in journals of older versions). */
  taskId?: string
  pid: number
  job: string
  snapshot: string
  trigger: RunRecord['trigger']
  startedAt: string
  /** The target as the task shows it. */
  target: string
  /** The restore root the parent is below, and the parent's folders below it. */
  root: string
  components: string[]
  /** The target's name inside the parent, and the temporary folder's. */
  name: string
  temporaryName: string
  phase: 'extracting' | 'merging'
}

/** The restore's side of its journal. */
export interface RestoreJournalHandle {
  extracting(temporaryName: string): void
  merging(): void
  end(): void
}

const folderOf = (dataDir: string) => join(dataDir, 'restores')

/** Written under a temporary name and renamed: a kill never leaves half a journal. */
function save(dataDir: string, entry: RestoreJournalEntry): void {
  const folder = folderOf(dataDir)
  mkdirSync(folder, { recursive: true, mode: 0o700 })
  const file = join(folder, `${entry.id}.json`)
  writeFileSync(`${file}.tmp`, JSON.stringify(entry), { mode: 0o600 })
  renameSync(`${file}.tmp`, file)
}

export function beginRestoreJournal(dataDir: string, entry: Omit<RestoreJournalEntry, 'id' | 'pid' | 'phase' | 'temporaryName'>): RestoreJournalHandle {
  const full: RestoreJournalEntry = { ...entry, id: randomBytes(8).toString('hex'), pid: process.pid, phase: 'extracting', temporaryName: '' }
  return {
    extracting(temporaryName) {
      full.temporaryName = temporaryName
      save(dataDir, full)
    },
    merging() {
      full.phase = 'merging'
      save(dataDir, full)
    },
    end() {
      rmSync(join(folderOf(dataDir), `${full.id}.json`), { force: true })
    },
  }
}

/** Whether `pid` is a live process other than this one (a journal of a restore still running elsewhere). */
function runsElsewhere(pid: number): boolean {
  if (pid === process.pid) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

type Log = (job: string, level: 'info' | 'warn' | 'error', message: string) => void

/** Completes or rolls back the restores a killed process left; returns how many were put right. */
export async function recoverRestores(dataDir: string, history: RunHistory, log: Log): Promise<number> {
  const folder = folderOf(dataDir)
  let names: string[]
  try {
    names = readdirSync(folder)
  } catch {
    return 0
  }
  let recovered = 0
  for (const file of names) {
    const path = join(folder, file)
    if (file.endsWith('.json.tmp')) {
      rmSync(path, { force: true })
      continue
    }
    if (!file.endsWith('.json')) continue
    let entry: RestoreJournalEntry
    try {
      entry = JSON.parse(readFileSync(path, 'utf8')) as RestoreJournalEntry
    } catch {
      rmSync(path, { force: true })
      continue
    }
    if (runsElsewhere(entry.pid)) continue
    const error = await putRight(entry).catch((err: Error) => `interrupted, and putting it right at the next start failed: ${err.message}`)
    log(entry.job, 'warn', `[restore] ${error}`)
    const ended = new Date()
    await history
      .append({
        // The task's own id (its start first), so the record sorts with the others; its in-flight note is then only removed.
        id: entry.taskId ?? runRecordId(new Date(entry.startedAt)),
        job: entry.job,
        kind: 'restore',
        trigger: entry.trigger,
        startedAt: entry.startedAt,
        endedAt: ended.toISOString(),
        durationMs: ended.getTime() - new Date(entry.startedAt).getTime(),
        result: 'failed',
        bytesRead: 0,
        bytesWritten: 0,
        snapshot: entry.snapshot,
        target: entry.target,
        error,
      })
      .catch((err: Error) => log(entry.job, 'warn', `[restore] could not record the interrupted restore in the history: ${err.message}`))
    rmSync(path, { force: true })
    recovered++
  }
  return recovered
}

/** Finishes the merge or drops the unpacked files; returns what the history says about it. */
async function putRight(entry: RestoreJournalEntry): Promise<string> {
  const parent = holdBelow(entry.root, entry.components)
  const temporary = entry.temporaryName ? join(parent.dir, entry.temporaryName) : ''
  try {
    const unpacked = temporary ? await lstat(temporary).catch(() => undefined) : undefined
    if (entry.phase === 'extracting' || !unpacked?.isDirectory()) {
      return `interrupted: the daemon stopped while unpacking ${entry.snapshot}; ${entry.target} was left as it was (temporary folder removed at the next start)`
    }
    const target = join(parent.dir, entry.name)
    const there = await lstat(target).catch(() => undefined)
    if (!there) {
      await chmod(temporary, 0o755)
      await rename(temporary, target)
    } else {
      if (!there.isDirectory()) throw new Error(`${entry.target} is no longer a folder; the restored files were dropped`)
      await moveInto(temporary, target)
    }
    return `interrupted: the daemon stopped while moving the restored files of ${entry.snapshot} into ${entry.target}; the move was completed at the next start`
  } finally {
    if (temporary) await removeTree(temporary)
    parent.close()
  }
}
