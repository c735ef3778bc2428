/**
 * @module sources/support/scratchProcess
 * A process a drill check starts that must not outlive the drill (a temporary database server), noted in a
 * small file inside the check's scratch folder. A daemon killed mid-drill cannot stop it; the next start's
 * scratch sweep (`restore/drill/drillScratch`) reads the notes of the dead drill's folder, stops each process
 * that is still the one noted (same executable: a pid may have been reused) and removes the folders outside
 * the scratch folder it used (only ones named with `scratchTempPrefix`), before removing the scratch folder.
 * Kind-agnostic: the note says which signal stops the process.
 */
import { readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises'
import { basename, isAbsolute, join } from 'node:path'
import { processAlive } from './processAlive.js'

/** Ends the note's file name. */
export const scratchProcessSuffix = '.scratch-process.json'
/** Folders a check makes outside its scratch folder (e.g. in the system temp folder) start with this. */
export const scratchTempPrefix = 'backup-daemon-drill-'

export interface ScratchProcess {
  pid: number
  /** Absolute path of the process's executable (`/proc/<pid>/exe`), checked before it is signalled. */
  command: string
  /** What stops it cleanly and quickly (a PostgreSQL server: SIGINT, its fast shutdown). */
  signal: NodeJS.Signals
  /** Folders outside the scratch folder to remove once it is gone (named `scratchTempPrefix…`). */
  remove: string[]
  /** When set, the process is signalled only if its command line (`/proc/<pid>/cmdline`) also holds this (its data folder). */
  commandLineHas?: string
}

/** Writes the note `<dir>/<name>.scratch-process.json`; resolves with its path (removed by the check once it stopped the process). */
export async function noteScratchProcess(dir: string, name: string, note: ScratchProcess): Promise<string> {
  const file = join(dir, name + scratchProcessSuffix)
  await writeFile(file, JSON.stringify(note), { mode: 0o600 })
  return file
}

async function notes(dir: string): Promise<string[]> {
  const found: string[] = []
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) found.push(...(await notes(path)))
    else if (entry.isFile() && entry.name.endsWith(scratchProcessSuffix)) found.push(path)
  }
  return found
}

/**
 * Stops the processes noted below `dir` (a dead drill's scratch folder) and removes their outside folders;
 * resolves with a line per process for the log. Waits up to `waitMs` for each, then kills it (SIGKILL).
 */
export async function stopScratchProcesses(dir: string, waitMs = 30_000): Promise<string[]> {
  const done: string[] = []
  for (const file of await notes(dir)) {
    const note = JSON.parse(await readFile(file, 'utf8').catch(() => '{}')) as Partial<ScratchProcess>
    const { pid, command, signal = 'SIGTERM', remove = [], commandLineHas } = note
    if (typeof pid === 'number' && pid > 0 && command && processAlive(pid)) {
      const exe = await readlink(`/proc/${pid}/exe`).catch(() => undefined)
      const commandLine = commandLineHas ? await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '') : ''
      if (exe === command && (!commandLineHas || commandLine.includes(commandLineHas))) {
        process.kill(pid, signal)
        const deadline = Date.now() + waitMs
        while (processAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
        if (processAlive(pid)) process.kill(pid, 'SIGKILL')
        done.push(`stopped ${basename(command)} (pid ${pid}) left running by a killed drill`)
      }
    }
    for (const path of remove) {
      if (isAbsolute(path) && basename(path).startsWith(scratchTempPrefix)) await rm(path, { recursive: true, force: true })
    }
  }
  return done
}
