/**
 * @module test/api/support/daemonProcess
 * Runs the real `backup-daemon --config FILE` process for end-to-end API tests and stops it.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const bin = fileURLToPath(new URL('../../../bin/backup-daemon.js', import.meta.url))

export interface DaemonProcess {
  url: string
  child: ChildProcess
  output(): string
  /** SIGTERM, then SIGKILL after 10 s; resolves with the exit code. */
  stop(): Promise<number | null>
}

export interface SpawnDaemonOptions {
  /** Folder put first on the child's PATH (stand-in tools). */
  pathPrefix?: string
  /** @default 20000 */
  startTimeoutMs?: number
}

export async function spawnDaemon(configFile: string, { pathPrefix, startTimeoutMs = 60_000 }: SpawnDaemonOptions = {}): Promise<DaemonProcess> {
  const env = { ...process.env, FORCE_COLOR: '', ...(pathPrefix ? { PATH: `${pathPrefix}:${process.env.PATH ?? ''}` } : {}) }
  const child = spawn(process.execPath, [bin, '--config', configFile], { stdio: ['ignore', 'pipe', 'pipe'], env })
  let output = ''
  child.stdout!.on('data', (chunk: Buffer) => void (output += chunk.toString()))
  child.stderr!.on('data', (chunk: Buffer) => void (output += chunk.toString()))
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`daemon did not start in ${startTimeoutMs / 1000} s:\n${output}`)), startTimeoutMs)
    const check = () => {
      const match = /listening on (http:\/\/\S+)/.exec(output)
      if (match) {
        clearTimeout(timer)
        resolve(match[1]!)
      }
    }
    child.stdout!.on('data', check)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`daemon exited with ${code}:\n${output}`))
    })
  })
  return {
    url,
    child,
    output: () => output,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode)
        const kill = setTimeout(() => child.kill('SIGKILL'), 10_000)
        child.once('exit', (code) => {
          clearTimeout(kill)
          resolve(code)
        })
        child.kill('SIGTERM')
      }),
  }
}
