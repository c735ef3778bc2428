/**
 * @module test/repository/restic/support/killedRun
 * A `backup-daemon` command started in its own process group, so a test can find the restic commands it
 * runs and kill them (`kill -9`, a power cut) at a chosen moment.
 */
import { execFileSync, spawn } from 'node:child_process'
import { daemonBin } from '../../../support/runCli.js'

/** The ids of the processes of process group `group` whose command line includes `text`. */
export const inGroup = (group: number, text: string): number[] =>
  execFileSync('ps', ['-eo', 'pid=,pgid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, pgid, ...args]) => Number(pgid) === group && args.join(' ').includes(text))
    .map(([pid]) => Number(pid))

/** The daemon run with `args`, detached: its pid is its process group; `exited` settles when it ends. */
export function spawnInGroup(args: string[], { cwd, env }: { cwd: string; env: Record<string, string> }): { group: number; exited: Promise<unknown> } {
  const child = spawn(process.execPath, [daemonBin, ...args], { cwd, env: { ...process.env, ...env }, detached: true, stdio: 'ignore' })
  return { group: child.pid!, exited: new Promise((resolve) => child.once('exit', resolve)) }
}
