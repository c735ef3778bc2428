/**
 * @module sources/support/processAlive
 * Whether a process id names a live process on this machine: how a drill's leftovers (scratch folders,
 * scratch databases, temporary servers) are told from a running drill's.
 */

/** True while `pid` is a process (EPERM: another user's process has the id, it is alive). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}
