/**
 * @module sources/support/feedCommand
 * Streams a dump into a database client's stdin (`pg_restore`, `mariadb`) and waits for it to finish.
 * A client that fails early closes its stdin (EPIPE): its exit code and the end of its stderr tell why,
 * so they win over the broken pipe. Aborting kills the client at once.
 */
import { spawn } from 'node:child_process'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { tail } from './runChild.js'

export interface FeedCommandOptions {
  env: NodeJS.ProcessEnv
  signal?: AbortSignal
  /** The name errors give the command. @default the command's file name */
  label?: string
}

export async function feedCommand(
  command: string,
  args: string[],
  dump: Readable,
  { env, signal, label = command.split('/').pop() }: FeedCommandOptions,
): Promise<void> {
  const child = spawn(command, args, { env, stdio: ['pipe', 'ignore', 'pipe'] })
  const stderr = tail(5)
  child.stderr!.on('data', stderr.push)
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject)
    child.once('close', (code) => resolve(code))
  })
  const onAbort = () => child.kill('SIGKILL')
  signal?.addEventListener('abort', onAbort, { once: true })
  try {
    const fed = pipeline(dump, child.stdin!).catch((err: unknown) => err)
    const [code, feedError] = await Promise.all([exited, fed])
    // A client that exited 0 before the abort reached it has finished (its transaction committed): not cancelled.
    if (code !== 0) signal?.throwIfAborted()
    if (code !== 0) throw new Error(`${label} exited with ${code}: ${stderr.text() || '(no output)'}`)
    if (feedError) throw feedError
  } finally {
    signal?.removeEventListener('abort', onAbort)
  }
}
