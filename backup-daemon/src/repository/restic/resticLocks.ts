/**
 * @module repository/restic/resticLocks
 * Stale locks after a crash. A restic killed with SIGKILL (a `kill -9` of the daemon, a power cut) leaves
 * its lock file in the repository, and the next exclusive command (`forget --prune`) then fails with
 * "repository is already locked". `restic unlock` removes every lock restic deems stale: one of this host
 * whose process is gone, and one of any host not refreshed for 30 minutes. The second kind may be another
 * daemon's (several daemons share one S3 repository), so the daemon runs `unlock` only when every stale
 * lock is provably its own and dead: written from this host, by a process that no longer exists (or whose
 * PID now belongs to a program other than restic). Anything else is reported, never removed.
 */
import { readFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { restic, resticJson, type ResticTarget } from './resticProcess.js'

export interface ResticLock {
  id: string
  time: string
  exclusive: boolean
  hostname: string
  pid: number
}

/** restic's own rule: a lock not refreshed for this long is stale, whoever holds it. */
const staleAfterMs = 30 * 60_000

export type LockState = 'ours-dead' | 'live' | 'foreign-stale'

/** Whether `pid` is a running restic on this machine (a reused PID running something else is not). */
async function isResticRunning(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0)
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
  try {
    return (await readFile(`/proc/${pid}/comm`, 'utf8')).trim() === 'restic'
  } catch {
    // No /proc (not Linux): a live PID is taken as restic, the safe side.
    return true
  }
}

export async function lockState(lock: ResticLock, now = Date.now(), host = hostname()): Promise<LockState> {
  if (lock.hostname === host) return (await isResticRunning(lock.pid)) ? 'live' : 'ours-dead'
  return now - Date.parse(lock.time) > staleAfterMs ? 'foreign-stale' : 'live'
}

export async function listLocks(target: ResticTarget, signal?: AbortSignal): Promise<ResticLock[]> {
  const ids = (await restic(target, ['list', 'locks', '--no-lock'], { ...(signal && { signal }) })).split('\n').filter(Boolean)
  const locks: ResticLock[] = []
  for (const id of ids) {
    try {
      const lock = await resticJson<Omit<ResticLock, 'id'>>(target, ['cat', 'lock', id, '--no-lock'], { ...(signal && { signal }) })
      locks.push({ ...lock, id })
    } catch {
      // Removed between the listing and the read: its holder ended.
    }
  }
  return locks
}

/**
 * Removes this host's dead locks (`restic unlock`) when no other stale lock would go with them. Returns
 * what it did, for the job log: the locks removed, and the stale locks of other hosts left in place.
 */
export async function removeOwnDeadLocks(target: ResticTarget, signal?: AbortSignal): Promise<{ removed: ResticLock[]; foreign: ResticLock[] }> {
  const locks = await listLocks(target, signal)
  const states = await Promise.all(locks.map((lock) => lockState(lock)))
  const removed = locks.filter((_, i) => states[i] === 'ours-dead')
  const foreign = locks.filter((_, i) => states[i] === 'foreign-stale')
  if (removed.length === 0 || foreign.length > 0) return { removed: [], foreign }
  await restic(target, ['unlock'], { ...(signal && { signal }) })
  return { removed, foreign }
}

/** The message for a repository left locked by someone else. */
export function describeForeignLocks(foreign: ResticLock[]): string {
  return foreign
    .map((lock) => `a stale ${lock.exclusive ? 'exclusive ' : ''}lock of host "${lock.hostname}" (PID ${lock.pid}, since ${lock.time})`)
    .join('; ')
    .concat(": not removed, since it is not this daemon's; run `restic unlock` once that host's restic is known to be gone")
}
