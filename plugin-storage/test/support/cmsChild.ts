/**
 * @module test/support/cmsChild
 * Starts `cmsProcess.ts` (a real Payload + this plugin on SQLite, over real HTTP) in a child process and
 * waits for its `CMS_READY` line: the Payload 4 suite runs it with Node 24 inside the throwaway project,
 * the memory tests with this Node in the workspace (the CMS's own RSS can then be read from /proc).
 */
import { spawn } from 'node:child_process'

import type { RunningEmulator } from 'dev-app/emulator'

import type { CmsProcessInput, CmsProcessReady } from './cmsScenario.js'

export interface RemoteCms extends CmsProcessReady {
  /** Process id of the CMS (the Node process itself: no wrapper). */
  pid: number
  fetch(path: string, init?: RequestInit & { auth?: string | false }): Promise<Response>
  /** Runs the plugin's orphan sweep of client uploads in the CMS now (age limit 0); answers the deleted keys. */
  sweepOrphanUploads(): Promise<string[]>
  /** Everything the CMS wrote to stderr (for failure messages). */
  stderr(): string
  close(): Promise<void>
}

export interface CmsChildArgs {
  /** Node binary. */
  node: string
  /** Working directory; `script` is relative to it. */
  cwd: string
  script: string
  emu: RunningEmulator
  input: Omit<CmsProcessInput, 'emulator'>
  /** Name in error messages. */
  label: string
}

export async function startCmsChild({ cwd, emu, input, label, node, script }: CmsChildArgs): Promise<RemoteCms> {
  const processInput: CmsProcessInput = { ...input, emulator: { storage: emu.storage, stream: emu.stream } }
  const child = spawn(node, ['--import', 'tsx', script], {
    cwd,
    env: { ...process.env, CMS_PROCESS_INPUT: JSON.stringify(processInput), NODE_OPTIONS: '' },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-20_000)
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  let out = ''
  const lineListeners = new Set<(line: string) => void>()
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk
    let newline: number
    while ((newline = out.indexOf('\n')) >= 0) {
      const line = out.slice(0, newline)
      out = out.slice(newline + 1)
      for (const listener of lineListeners) listener(line)
    }
  })
  const nextLine = (prefix: string) =>
    new Promise<string>((resolve) => {
      const listener = (line: string) => {
        if (!line.startsWith(prefix)) return
        lineListeners.delete(listener)
        resolve(line.slice(prefix.length))
      }
      lineListeners.add(listener)
    })
  const ready = await new Promise<CmsProcessReady>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${label} did not start in 120 s:\n${stderr.slice(-3000)}`)), 120_000)
    void nextLine('CMS_READY ').then((line) => {
      clearTimeout(timer)
      resolve(JSON.parse(line) as CmsProcessReady)
    })
    void exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`${label} exited (${code}) before it was ready:\n${stderr.slice(-3000)}`))
    })
  })
  return {
    ...ready,
    pid: child.pid!,
    fetch: (path, init = {}) => {
      const headers = new Headers(init.headers)
      if (init.auth !== false && !headers.has('authorization')) headers.set('Authorization', `JWT ${init.auth ?? ready.token}`)
      return fetch(`${ready.url}${path}`, { ...init, headers })
    },
    sweepOrphanUploads: async () => {
      const answer = nextLine('SWEPT ')
      child.stdin.write('sweep\n')
      const result = JSON.parse(await answer) as string[] | { error: string }
      if (!Array.isArray(result)) throw new Error(`orphan sweep failed: ${result.error}`)
      return result
    },
    stderr: () => stderr,
    close: async () => {
      child.stdin.end()
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      await exited
      clearTimeout(timer)
    },
  }
}
