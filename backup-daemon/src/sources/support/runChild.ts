/**
 * @module sources/support/runChild
 * Runs a helper process to its end: resolves on exit code 0, rejects with the last lines of its
 * stderr otherwise, and kills it (SIGKILL, no cleanup needed by the child) when `signal` aborts.
 */
import type { SpawnOptions } from 'node:child_process'
import { spawnOwned } from './spawnOwned.js'

export interface RunChildOptions extends Pick<SpawnOptions, 'env' | 'cwd'> {
  signal: AbortSignal
  /** How many stderr lines a failure message quotes. @default 5 */
  tailLines?: number
}

export function runChild(command: string, args: string[], { signal, tailLines = 5, env, cwd }: RunChildOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    signal.throwIfAborted()
    const child = spawnOwned(command, args, { env, cwd, stdio: ['ignore', 'ignore', 'pipe'] })
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
  /** The first lines that say what went wrong (`pg_restore: error: …`, `ERROR 1049 …`, `FATAL: …`): tools print context after them. */
  const errors: string[] = []
  let partial = ''
  return {
    push: (chunk: Buffer) => {
      const text = chunk.toString('utf8')
      kept = (kept + text)
        .split('\n')
        .slice(-lines - 1)
        .join('\n')
        .slice(-8192)
      const all = (partial + text).split('\n')
      partial = all.pop() ?? ''
      for (const line of all) if (errors.length < 3 && errorLine.test(line)) errors.push(line.trim().slice(0, 500))
    },
    text: () => {
      const last = kept.trim().split('\n').slice(-lines)
      if (errors.length === 0 && partial && errorLine.test(partial)) errors.push(partial.trim().slice(0, 500))
      const first = errors.filter((line) => !last.some((kept) => kept.trim() === line))
      return [...first, ...(first.length ? ['…'] : []), ...last].join(' | ')
    },
  }
}

const errorLine = /(^|[\s:])(error|fatal|ERROR|FATAL|Error)\b/
