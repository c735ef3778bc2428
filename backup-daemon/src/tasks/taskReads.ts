/**
 * @module tasks/taskReads
 * How a task reads a job's snapshots: the job's keys (`archiveKeys`), plus age identities the operator
 * gave (`restore --identity FILE`), stopped by the task's cancel (checked per chunk), every byte read from
 * the storage counted in the task's progress.
 */
import type { JobConfig } from '../config/types.js'
import { archiveKeys } from '../repository/archiveKeys.js'
import type { ReadOptions } from '../repository/types.js'
import type { TaskContext } from './TaskRunner.js'

export interface TaskReads {
  options(context: TaskContext): ReadOptions
}

export interface TaskReadsOptions {
  /** `AGE-SECRET-KEY-1…` lines for a snapshot encrypted to recipients (`restore --identity FILE`). */
  identities?: readonly string[]
  /** Only these sources are wanted (`ReadOptions.sources`: a database restore). */
  sources?: readonly string[]
}

export function taskReads(job: JobConfig, { identities, sources }: TaskReadsOptions = {}): TaskReads {
  const keys = archiveKeys(job)
  if (identities?.length) keys.keys = { ...keys.keys, identities: [...identities] }
  return {
    options: (context) => ({ ...keys, signal: context.signal, onBytes: (n) => context.meter.addBytes(n), ...(sources && { sources }) }),
  }
}
