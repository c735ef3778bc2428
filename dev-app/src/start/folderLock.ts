/**
 * @module start/folderLock
 * A lock between processes on one machine: a folder made with `mkdir` (atomic) holding its owner's pid.
 * A lock whose owner has died is taken over, so a killed process never blocks the next one. Used by the
 * admin build (two `npm start` at once) and by the test suites that share one throwaway project.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'

/** Waits until `lock` (a folder path) is ours; answers the function that lets it go. `onWait` is told once when it must wait. */
export async function holdFolderLock(lock: string, onWait: () => void = () => undefined): Promise<() => void> {
  const owner = path.join(lock, 'pid')
  mkdirSync(path.dirname(lock), { recursive: true })
  for (let waited = false; ;) {
    try {
      mkdirSync(lock)
      writeFileSync(owner, String(process.pid))
      break
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      const pid = ownerOf(owner)
      if (pid && !isAlive(pid)) {
        rmSync(lock, { recursive: true, force: true })
        continue
      }
      if (!waited) onWait()
      waited = true
      await new Promise((resolve) => setTimeout(resolve, 500))
    }
  }
  let released = false
  return () => {
    if (released) return
    released = true
    rmSync(lock, { recursive: true, force: true })
  }
}

/** Runs `work` while holding `lock`. */
export async function withFolderLock<T>(lock: string, work: () => Promise<T>, onWait?: () => void): Promise<T> {
  const release = await holdFolderLock(lock, onWait)
  try {
    return await work()
  } finally {
    release()
  }
}

/** The lock's owner, or 0 while it has not written its pid yet (or the lock went in between). */
function ownerOf(file: string): number {
  try {
    return Number(readFileSync(file, 'utf8')) || 0
  } catch {
    return 0
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}
