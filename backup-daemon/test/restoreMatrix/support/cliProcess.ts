/**
 * @module test/restoreMatrix/support/cliProcess
 * The real command run as a child process that a test can act on while it runs: wait for a line of its
 * output (the moment to cut a connection or to kill it), then for its exit. `runCli` only gives the end.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { daemonBin } from '../../support/runCli.js'

export interface CliProcess {
  child: ChildProcess
  /** Its stdout and stderr so far, together. */
  output(): string
  /** Resolves once the output matches `pattern`; rejects when the command exits first. */
  until(pattern: RegExp): Promise<void>
  /** Its exit: the code, or the signal that ended it. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

export function spawnCli(args: string[]): CliProcess {
  const child = spawn(process.execPath, [daemonBin, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '' } })
  let out = ''
  const listeners = new Set<() => void>()
  const take = (chunk: Buffer) => {
    out += chunk.toString()
    for (const listener of listeners) listener()
  }
  child.stdout!.on('data', take)
  child.stderr!.on('data', take)
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  )
  return {
    child,
    output: () => out,
    exited,
    until: (pattern) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (!pattern.test(out)) return
          listeners.delete(check)
          resolve()
        }
        listeners.add(check)
        check()
        void exited.then(() => {
          if (!listeners.has(check)) return
          listeners.delete(check)
          reject(new Error(`the command exited before printing ${pattern}:\n${out.slice(-2500)}`))
        })
      }),
  }
}
