/**
 * @module bench/support/measure
 * Small helpers shared by the benchmarks: peak memory of a process and the RESULT line format.
 */
import { readFileSync } from 'node:fs'

/** Peak resident set size (VmHWM) of a live process in MiB, read from /proc. */
export function peakRssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kib = Number(status.match(/^VmHWM:\s+(\d+) kB/m)?.[1] ?? NaN)
  return kib / 1024
}

/** Current resident set size (VmRSS) of a live process in MiB. */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kib = Number(status.match(/^VmRSS:\s+(\d+) kB/m)?.[1] ?? NaN)
  return kib / 1024
}

/** CPU seconds (user + system, every thread) a live process has used so far, from /proc/<pid>/stat. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  // Fields after the command name (which may hold spaces) in parentheses: utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond
}

/** Linux's USER_HZ, the unit of /proc's CPU times: 100 on every architecture Node runs on. */
const ticksPerSecond = 100

/** Prints one summary line: `RESULT <name>: <ratio>x <what> (target <target>)`. */
export function printResult(name: string, ratio: number, what: string, target?: string): void {
  const suffix = target ? ` (target ${target})` : ''
  console.log(`RESULT ${name}: ${ratio.toFixed(2)}x ${what}${suffix}`)
}
