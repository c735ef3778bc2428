/**
 * @module runs/InFlightNotes
 * A run or task that was killed still gets its record. Each backup, verify, restore and drill, in the
 * daemon or the CLI, leaves a note when it starts (`<dataDir>/in-flight/<id>.json`: the start of its
 * record and the pid of its process) and removes it once its record is in the history. At the next start
 * of either, a note whose process is gone is a run or task that was killed (`kill -9`, a crash, a power
 * cut): it is recorded as failed under its own id, so it sorts by its start with every other record, and
 * the caller counts it in the metrics. A note of another live process (a CLI task beside the daemon) is
 * left alone; one naming this process's pid but not begun by it is a dead one's (a container's daemon
 * gets the same low pid at every start). A note whose id the history already holds (the restore journal
 * recorded it first, with what it put right) is only removed.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { processAlive } from '../sources/support/processAlive.js'
import type { RunHistory, RunRecord } from './history.js'

/** What a record holds from its start on. */
export type RecordStart = Pick<RunRecord, 'id' | 'job' | 'kind' | 'trigger' | 'startedAt'> & Partial<Pick<RunRecord, 'snapshot' | 'target'>>

interface Note extends RecordStart {
  pid: number
}

/** The notes this process wrote and has not removed: live, whatever the pid says. */
const ownNotes = new Set<string>()

export class InFlightNotes {
  private readonly dir: string

  constructor(dataDir: string) {
    this.dir = join(dataDir, 'in-flight')
  }

  private fileOf(id: string): string {
    // Ids are `runRecordId`s (base 36 and hex); anything else could not form a path.
    if (!/^[0-9a-z-]+$/.test(id)) throw new Error(`not a record id: ${JSON.stringify(id)}`)
    return join(this.dir, `${id}.json`)
  }

  /** Notes `start`; the returned function removes the note (call it once the record is in the history). */
  begin(start: RecordStart): () => void {
    const file = this.fileOf(start.id)
    const note: Note = { ...start, pid: process.pid }
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 })
      // Under a temporary name, then renamed: a kill never leaves half a note.
      writeFileSync(`${file}.tmp`, JSON.stringify(note), { mode: 0o600 })
      renameSync(`${file}.tmp`, file)
      ownNotes.add(start.id)
    } catch {
      // A data folder that cannot be written fails the run itself soon enough; the note is not worth failing it for.
    }
    return () => {
      ownNotes.delete(start.id)
      rmSync(file, { force: true })
    }
  }

  /**
   * Records as failed every noted run and task whose process is gone, and removes their notes; returns
   * the records appended (newest last). `log` hears one line per record.
   */
  async recover(history: RunHistory, log: (job: string, message: string) => void): Promise<RunRecord[]> {
    let names: string[]
    try {
      names = readdirSync(this.dir)
    } catch {
      return []
    }
    const recorded: RunRecord[] = []
    for (const name of names.sort()) {
      const path = join(this.dir, name)
      if (name.endsWith('.json.tmp')) {
        rmSync(path, { force: true })
        continue
      }
      if (!name.endsWith('.json')) continue
      let note: Note
      try {
        note = JSON.parse(readFileSync(path, 'utf8')) as Note
        if (typeof note.id !== 'string' || typeof note.job !== 'string' || typeof note.startedAt !== 'string') throw new Error('not a note')
      } catch {
        rmSync(path, { force: true })
        continue
      }
      if (ownNotes.has(note.id) || (note.pid !== process.pid && processAlive(note.pid))) continue
      if (!history.list(note.job).some((record) => record.id === note.id)) {
        const found = new Date()
        const started = new Date(note.startedAt)
        const record: RunRecord = {
          id: note.id,
          job: note.job,
          kind: note.kind,
          trigger: note.trigger,
          startedAt: note.startedAt,
          endedAt: found.toISOString(),
          durationMs: Math.max(0, found.getTime() - started.getTime()),
          result: 'failed',
          bytesRead: 0,
          bytesWritten: 0,
          ...(note.snapshot !== undefined && { snapshot: note.snapshot }),
          ...(note.target !== undefined && { target: note.target }),
          error: `interrupted: the process running the ${note.kind} (pid ${note.pid}) stopped before it ended (killed or crashed); recorded at the next start`,
        }
        try {
          await history.append(record)
          recorded.push(record)
          log(note.job, `the ${note.kind} started ${note.startedAt} did not end (its process is gone): recorded as failed`)
        } catch (err) {
          log(note.job, `the ${note.kind} started ${note.startedAt} did not end, and could not be recorded: ${(err as Error).message}`)
          continue
        }
      }
      rmSync(path, { force: true })
    }
    return recorded
  }
}
