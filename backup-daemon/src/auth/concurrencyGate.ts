/**
 * @module auth/concurrencyGate
 * Caps how many password hashes run at once. scrypt runs on libuv's thread pool (4 threads by default),
 * which file reads, gzip and DNS share: a few hundred simultaneous logins from many addresses filled it
 * and a backup listing waited seconds. At most `max` tasks run; up to `maxWaiting` more queue in order;
 * beyond that `run` refuses at once with `GateFullError` (the route answers 429).
 */

export class GateFullError extends Error {
  override name = 'GateFullError'
}

export interface ConcurrencyGateOptions {
  /** Tasks running at once. @default 2 */
  max?: number
  /** Tasks queued behind them before new ones are refused. @default 32 */
  maxWaiting?: number
}

export interface ConcurrencyGate {
  /** Runs `task` when a slot is free; throws `GateFullError` when the queue is full. */
  run<T>(task: () => Promise<T>): Promise<T>
  /** Tasks running now (for tests and metrics). */
  readonly running: number
}

export function concurrencyGate({ max = 2, maxWaiting = 32 }: ConcurrencyGateOptions = {}): ConcurrencyGate {
  let running = 0
  const waiting: (() => void)[] = []
  return {
    get running() {
      return running
    },
    async run(task) {
      if (running >= max) {
        if (waiting.length >= maxWaiting) throw new GateFullError('too many password checks in progress')
        // The slot is handed over by the finishing task, so `running` never drops below max meanwhile.
        await new Promise<void>((resolve) => waiting.push(resolve))
      } else running += 1
      try {
        return await task()
      } finally {
        const next = waiting.shift()
        if (next) next()
        else running -= 1
      }
    },
  }
}
