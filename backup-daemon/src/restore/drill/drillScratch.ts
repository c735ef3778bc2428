/**
 * @module restore/drill/drillScratch
 * The throwaway space of a restore drill: one folder `<dataDir>/drills/drill-<pid>-<random>/` per drill,
 * named with a prefix, the drilling process's id and a random part, so it can never be mistaken for (or
 * collide with) anything else. It is removed when the drill ends, whatever the outcome; a drill killed
 * mid-way (its process gone) leaves it behind, and `sweepDrillScratch` removes it at the next start (the
 * daemon's, or the next `drill` command's), as `tasks/restoreJournal` recovers a killed restore, after
 * stopping any temporary database server the drill had started there (a `drill-server.pid` file).
 * Before anything is written, the file system must have the room the snapshot needs (`statfs`).
 */
import { randomBytes } from 'node:crypto'
import { mkdir, readdir, statfs } from 'node:fs/promises'
import { join } from 'node:path'
import { stopScratchProcesses } from '../../sources/support/scratchProcess.js'
import { processAlive } from '../../sources/support/processAlive.js'
import { removeTree } from '../removeTree.js'

export const drillsFolder = (dataDir: string) => join(dataDir, 'drills')
const scratchPattern = /^drill-(\d+)-[0-9a-f]{12}$/

export interface DrillScratch {
  /** The scratch folder (private to the daemon's user). */
  dir: string
  remove(): Promise<void>
}

/**
 * A new scratch folder, after checking the file system holds `needBytes` free (the snapshot's size: what
 * it unpacks to is at least that for anything compressed, so it is the least a drill needs).
 */
export async function createDrillScratch(dataDir: string, needBytes: number): Promise<DrillScratch> {
  const folder = drillsFolder(dataDir)
  await mkdir(folder, { recursive: true, mode: 0o700 })
  const fs = await statfs(folder)
  const free = fs.bavail * fs.bsize
  if (free < needBytes) {
    throw new Error(`not enough free space for the drill in ${folder}: ${free} bytes free, the snapshot alone is ${needBytes} bytes; nothing was restored`)
  }
  const dir = join(folder, `drill-${process.pid}-${randomBytes(6).toString('hex')}`)
  await mkdir(dir, { mode: 0o700 })
  return { dir, remove: () => removeTree(dir) }
}

/**
 * Removes the scratch folders of drills whose process is gone; resolves with their names. A process a
 * check left running (a temporary database server, noted by `sources/support/scratchProcess`) is stopped first.
 */
export async function sweepDrillScratch(dataDir: string): Promise<string[]> {
  const folder = drillsFolder(dataDir)
  const names = await readdir(folder).catch(() => [] as string[])
  const removed: string[] = []
  for (const name of names) {
    const pid = Number(scratchPattern.exec(name)?.[1])
    if (!pid || pid === process.pid || processAlive(pid)) continue
    // Only the kinds' check folders (`drillSnapshot`): the restored files are the snapshot's, whatever they hold.
    const stopped = await stopScratchProcesses(join(folder, name, 'checks'))
    await removeTree(join(folder, name))
    removed.push(stopped.length ? `${name} (${stopped.join('; ')})` : name)
  }
  return removed
}
