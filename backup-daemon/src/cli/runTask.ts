/**
 * @module cli/runTask
 * `verify` and `restore` run their work as the API's tasks do (`tasks/TaskRunner`): a `ProgressMeter`
 * counts what is read from the storages (`countingStorage`), so the terminal shows the figures the web
 * UI shows, the task's log lines (`[verify] ...`) go to the reporter, and it ends as a history record
 * (the `--json` summary). The record stays in memory: these commands never touch the daemon's state,
 * so they run beside a live daemon. SIGINT/SIGTERM cancel the task (exit 130).
 */
import type { Readable } from 'node:stream'
import type { RunRecord } from '../runs/history.js'
import { countingStorage } from '../repository/archives/countingStorage.js'
import { memoryRunHistory } from '../tasks/memoryRunHistory.js'
import { TaskRunner, type TaskContext, type TaskOutcome, type TaskSpec } from '../tasks/TaskRunner.js'
import type { LocatedSnapshot } from '../repository/archives/readManifest.js'
import type { Storage } from '../storages/types.js'
import { nextSignal } from './output.js'
import { createReadLimiter, type ReadLimiter } from './limitReads.js'
import type { Reporter } from './terminal/Reporter.js'

export type CliTaskSpec = Omit<TaskSpec, 'trigger'>

export interface CliTaskOptions {
  /** `--limit-download`: bytes per second read from the storages, at most. */
  limitBytesPerSecond?: number
}

/** Runs `work` as a task; resolves with the exit code: 0 success, 1 failed, 130 cancelled by a signal. */
export async function runTask(reporter: Reporter, spec: CliTaskSpec, work: (context: TaskContext) => Promise<TaskOutcome>): Promise<number> {
  const history = memoryRunHistory()
  const runner = new TaskRunner({
    history,
    log: (_job, level, message) => reporter.message(level, message),
    onProgress: (_job, progress) => reporter.progress(progress),
  })
  runner.start({ ...spec, trigger: 'cli' }, work)
  void nextSignal().then((signal) => {
    if (!runner.busy(spec.job)) return
    reporter.message('warn', `${signal}: cancelling the ${spec.kind}`)
    runner.cancel(spec.job)
  })
  await runner.whenDone(spec.job)
  const record: RunRecord | undefined = history.list(spec.job, 1)[0]
  if (record) reporter.summary(record)
  reporter.close()
  return record?.result === 'success' ? 0 : record?.result === 'cancelled' ? 130 : 1
}

/** The `--limit-download` pace of one command (shared by every storage it reads), or none. */
export const readLimiterOf = (options: CliTaskOptions): ReadLimiter | undefined =>
  options.limitBytesPerSecond ? createReadLimiter(options.limitBytesPerSecond) : undefined

/**
 * The same storage with every object it opens destroyed when `signal` aborts: a cancel stops a part
 * being read at once (`verifySnapshot` looks at the signal only between parts, and a paced read of a
 * large part would otherwise go on to its end).
 */
function abortable(storage: Storage, signal: AbortSignal): Storage {
  const open = async (key: string): Promise<Readable> => {
    signal.throwIfAborted()
    const stream = await storage.open(key)
    const stop = () => stream.destroy(signal.reason instanceof Error ? signal.reason : new Error('cancelled'))
    signal.addEventListener('abort', stop, { once: true })
    stream.once('close', () => signal.removeEventListener('abort', stop))
    return stream
  }
  return new Proxy(storage, {
    get(target, property, receiver) {
      if (property === 'open') return open
      const value: unknown = Reflect.get(target, property, receiver)
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value
    },
  })
}

/** The snapshot read through the task's meter (and the command's `--limit-download` pace), stopped by a cancel. */
export function meteredCopy(located: LocatedSnapshot, context: TaskContext, limiter?: ReadLimiter): LocatedSnapshot {
  const storage: Storage = limiter ? limiter.wrap(located.storage) : located.storage
  return {
    ...located,
    storage: abortable(
      countingStorage(storage, (n) => context.meter.addBytes(n)),
      context.signal,
    ),
  }
}

/** The bytes of a located snapshot (all its parts). */
export const sizeOf = (located: LocatedSnapshot) => located.entry.dataSizes.reduce((sum, size) => sum + size, 0)
