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

/** Prints one summary line: `RESULT <name>: <ratio>x <what> (target <target>)`. */
export function printResult(name: string, ratio: number, what: string, target?: string): void {
  const suffix = target ? ` (target ${target})` : ''
  console.log(`RESULT ${name}: ${ratio.toFixed(2)}x ${what}${suffix}`)
}
