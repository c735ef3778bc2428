/**
 * @module sources/support/scratchServer
 * A temporary database server a restore drill starts inside its scratch folder (MariaDB, Redis): its
 * process id goes into `drill-server.pid` in the server's folder as soon as it is spawned, so a drill
 * killed mid-way leaves a server the next start can find and stop (`restore/drill/drillScratch`
 * sweeps the folder) before it removes its files. Stopping is SIGKILL: the server's data is thrown away.
 */
import type { ChildProcess } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'

/** The file, in a folder of a drill's scratch space, that names a server process to stop before removing it. */
export const scratchServerPidFile = 'drill-server.pid'

/** Writes `child`'s pid into `dir` (a folder inside the drill's scratch space, named on the server's command line). */
export async function recordScratchServer(dir: string, child: ChildProcess): Promise<void> {
  if (child.pid) await writeFile(join(dir, scratchServerPidFile), `${child.pid}\n`, { mode: 0o600 })
}

/** Kills `child` (SIGKILL) and resolves once it exited. */
export async function killScratchServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGKILL')
  await exited
}
