/**
 * @module sources/support/runChild
 * Runs a helper process to its end: resolves on exit code 0, rejects with the last lines of its
 * stderr otherwise, and kills it (SIGKILL, no cleanup needed by the child) when `signal` aborts.
 */
import { spawn, type SpawnOptions } from 'node:child_process'

export interface RunChildOptions extends Pick<SpawnOptions, 'env' | 'cwd'> {
  signal: AbortSignal
  /** How many stderr lines a failure message quotes. @default 5 */
  tailLines?: number
}

export function runChild(command: string, args: string[], { signal, tailLines = 5, env, cwd }: RunChildOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    signal.throwIfAborted()
    const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'ignore', 'pipe'] })
    const stderr = tail(tailLines)
    child.stderr!.on('data', stderr.push)
    const onAbort = () => child.kill('SIGKILL')
    signal.addEventListener('abort', onAbort, { once: true })
    child.once('error', (err) => {
      signal.removeEventListener('abort', onAbort)
      reject(err)
    })
    child.once('close', (code, killed) => {
      signal.removeEventListener('abort', onAbort)
      if (signal.aborted) reject(signal.reason)
      else if (code === 0) resolve()
      else reject(new Error(`${command.split('/').pop()} exited with ${code ?? killed}: ${stderr.text() || '(no output)'}`))
    })
  })
}

/** Keeps the last `lines` lines of a byte stream (bounded memory whatever the child prints). */
export function tail(lines: number): { push(chunk: Buffer): void; text(): string } {
  let kept = ''
  return {
    push: (chunk: Buffer) => {
      kept = (kept + chunk.toString('utf8'))
        .split('\n')
        .slice(-lines - 1)
        .join('\n')
        .slice(-8192)
    },
    text: () => kept.trim().split('\n').slice(-lines).join(' | '),
  }
}
