/**
 * @module sources/support/spawnOwned
 * Every helper process the daemon starts (restic, dump and restore tools, compressors, temporary database
 * servers, hooks) dies with it. A daemon stopped normally stops its children itself; one killed with
 * `kill -9` (or the OOM killer) cannot, and a plain child lives on: a restic backup went on to finish its
 * snapshot and left its lock, a drill's temporary PostgreSQL server kept running (issue 39 #4). So each
 * child is started through `setpriv --pdeathsig <signal>` (util-linux, on every Debian system): the kernel
 * sends the child that signal the moment the daemon's process ends (`PR_SET_PDEATHSIG`). setpriv execs the
 * command in place, so the child's pid, exit code and signals are the command's own.
 *
 * What this does not reach: a child's own children (a shell hook's commands; the kernel clears the
 * setting on fork), and a child that changes user itself. The rest is left to the next start's sweeps
 * (`daemon/privateTempFolder`, `restore/drill/drillScratch`). Without setpriv (not Linux, no util-linux)
 * commands start as before. A command not found on PATH is started directly too, so it fails as it always
 * did (`ENOENT`, with each caller's hint of the package to install).
 */
import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process'
import { accessSync, constants, statSync } from 'node:fs'
import { delimiter, join, resolve } from 'node:path'

export interface OwnedSpawnOptions extends SpawnOptions {
  /**
   * The signal the child gets when the daemon dies: SIGKILL for a tool whose work is thrown away anyway,
   * SIGINT for one that cleans up (restic removes its lock, PostgreSQL shuts down fast). @default "SIGKILL"
   */
  deathSignal?: NodeJS.Signals
  /**
   * Capabilities the child must not have even as root (`setfcap`, `mknod`…: a restore of untrusted input),
   * taken out of its bounding and inheritable sets. Only where setpriv is found: ask `canDropCapabilities()` first.
   */
  dropCapabilities?: readonly string[]
}

let launcher: string | undefined | null = null

/** The setpriv that knows `--pdeathsig` (util-linux 2.33+), looked for once; undefined when there is none. */
export function deathSignalLauncher(): string | undefined {
  if (launcher !== null) return launcher
  launcher = undefined
  if (process.platform !== 'linux') return launcher
  for (const candidate of ['/usr/bin/setpriv', '/bin/setpriv']) {
    const probe = spawnSync(candidate, ['--help'], { encoding: 'utf8', timeout: 5000 })
    if (!probe.error && probe.stdout.includes('--pdeathsig')) return (launcher = candidate)
  }
  return launcher
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK)
    return statSync(path).isFile()
  } catch {
    return false
  }
}

/** Whether `command` would be found and run: a path (relative to `cwd`) or a name on `PATH`. */
function found(command: string, options: SpawnOptions): boolean {
  if (command.includes('/')) return isExecutableFile(resolve(String(options.cwd ?? '.'), command))
  const path = (options.env ?? process.env).PATH ?? ''
  return path
    .split(delimiter)
    .filter(Boolean)
    .some((dir) => isExecutableFile(join(dir, command)))
}

/** `spawn(command, args, options)`, the child tied to this process's life (see the module's comment). */
export function spawnOwned(command: string, args: readonly string[], options: OwnedSpawnOptions = {}): ChildProcess {
  const { deathSignal = 'SIGKILL', dropCapabilities, ...spawnOptions } = options
  const setpriv = deathSignalLauncher()
  if (!setpriv || !found(command, spawnOptions)) return spawn(command, args, spawnOptions)
  const dropped = dropCapabilities?.length ? ['--inh-caps=-all', `--bounding-set=${dropCapabilities.map((cap) => `-${cap}`).join(',')}`] : []
  return spawn(setpriv, ['--pdeathsig', deathSignal, ...dropped, '--', command, ...args], spawnOptions)
}

/** Whether `dropCapabilities` is honoured here (setpriv found). */
export const canDropCapabilities = (): boolean => deathSignalLauncher() !== undefined
