/**
 * @module engine/RunLock
 * One run of a job at a time across processes (the daemon and `backup-daemon run` from system cron):
 * `<dataDir>/locks/<job>.lock` holds the owner's pid. A lock whose process is gone is stale and taken
 * over (a `kill -9` leaves one behind).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export class RunLock {
  private readonly dir: string

  constructor(dataDir: string) {
    this.dir = join(dataDir, 'locks')
    mkdirSync(this.dir, { recursive: true, mode: 0o700 })
  }

  private path(job: string): string {
    return join(this.dir, `${job}.lock`)
  }

  /** The pid of another live process holding the job's lock, if any. */
  heldElsewhere(job: string): number | undefined {
    let pid: number
    try {
      pid = Number(readFileSync(this.path(job), 'utf8').trim())
    } catch {
      return undefined
    }
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return undefined
    try {
      process.kill(pid, 0)
      return pid
    } catch (err) {
      // EPERM: the process exists but belongs to someone else; still alive.
      return (err as NodeJS.ErrnoException).code === 'EPERM' ? pid : undefined
    }
  }

  /** Takes the lock; false when another live process holds it. */
  acquire(job: string): boolean {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        writeFileSync(this.path(job), String(process.pid), { flag: 'wx', mode: 0o600 })
        return true
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
        if (this.heldElsewhere(job) !== undefined) return false
        rmSync(this.path(job), { force: true })
      }
    }
    return false
  }

  release(job: string): void {
    if (this.heldElsewhere(job) === undefined) rmSync(this.path(job), { force: true })
  }
}
