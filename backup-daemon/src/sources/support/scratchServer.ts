/**
 * @module sources/support/scratchServer
 * A temporary database server a restore drill starts inside its scratch folder (MariaDB, Redis), noted as a
 * scratch process (`scratchProcess`) as soon as it is spawned, so a drill killed mid-way leaves a server the
 * next start can find and stop (`restore/drill/drillScratch` sweeps the folder) before it removes its files:
 * only while the pid is still that executable with `dir` on its command line (a reused pid is left alone).
 * Stopping is SIGKILL: the server's data is thrown away.
 */
import type { ChildProcess } from 'node:child_process'
import { readlink } from 'node:fs/promises'
import { noteScratchProcess } from './scratchProcess.js'
import { deathSignalLauncher } from './spawnOwned.js'

/** Notes `child` in `dir` (a folder inside the drill's scratch space, named on the server's command line). */
export async function recordScratchServer(dir: string, child: ChildProcess): Promise<void> {
  if (!child.pid) return
  // libuv returns from spawn once exec succeeded; a server started through the death-signal launcher
  // (`spawnOwned`) execs once more, a moment later: the note names the server's executable, not setpriv.
  const launcher = deathSignalLauncher()
  let command: string | undefined
  for (let attempt = 0; attempt < 100; attempt++) {
    command = await readlink(`/proc/${child.pid}/exe`).catch(() => undefined)
    if (!command || command !== launcher) break
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  if (command && command !== launcher) await noteScratchProcess(dir, 'server', { pid: child.pid, command, signal: 'SIGKILL', remove: [], commandLineHas: dir })
}

/** Kills `child` (SIGKILL) and resolves once it exited. */
export async function killScratchServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGKILL')
  await exited
}
