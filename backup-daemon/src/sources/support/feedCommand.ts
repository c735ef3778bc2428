/**
 * @module sources/support/feedCommand
 * Streams a dump into a database client's stdin (`pg_restore`, `mariadb`) and waits for it to finish.
 * A client that fails early closes its stdin (EPIPE): its exit code and the end of its stderr tell why,
 * so they win over the broken pipe. A dump that fails on its way (a read error, a statement refused by a
 * filter such as `confineMysqlDump`) is the cause instead: its error wins over the client's complaint
 * about the input that stopped short. Aborting kills the client at once.
 */
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { tail } from './runChild.js'
import { spawnOwned } from './spawnOwned.js'

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
  const child = spawnOwned(command, args, { env, stdio: ['pipe', 'ignore', 'pipe'] })
  const stderr = tail(5)
  child.stderr!.on('data', stderr.push)
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject)
    child.once('close', (code) => resolve(code))
  })
  const onAbort = () => child.kill('SIGKILL')
  signal?.addEventListener('abort', onAbort, { once: true })
  /** The dump's own failure; not the client's closed pipe, which the pipeline hands back to the dump. */
  let inputError: Error | undefined
  const pipeCodes = new Set(['EPIPE', 'ERR_STREAM_PREMATURE_CLOSE', 'ERR_STREAM_DESTROYED'])
  dump.once('error', (err: NodeJS.ErrnoException) => {
    if (!pipeCodes.has(err.code ?? '')) inputError ??= err
  })
  try {
    const fed = pipeline(dump, child.stdin!).catch((err: unknown) => err)
    const [code, feedError] = await Promise.all([exited, fed])
    // A client that exited 0 before the abort reached it has finished (its transaction committed): not cancelled.
    if (code !== 0) signal?.throwIfAborted()
    if (inputError) throw inputError
    if (code !== 0) throw new Error(`${label} exited with ${code}: ${stderr.text() || '(no output)'}`)
    if (feedError) throw feedError
  } finally {
    signal?.removeEventListener('abort', onAbort)
  }
}
