/**
 * @module engine/startupCleanup
 * The start-up sweep of objects an unfinished run left on a job's storages, off the start-up path: an
 * unreachable storage (a dead S3 endpoint, an SFTP host that drops packets) took each connection's
 * timeouts, about 12 s, before the daemon served anything. Now the daemon serves at once; a storage
 * whose sweep fails is marked down (logged, and listed in `GET /status` for a session) until a run of
 * its job succeeds. A run waits for its job's sweep first, so the sweep never removes a run's objects.
 */
import type { JobRepository } from '../repository/jobRepository.js'

export interface StorageDown {
  job: string
  storage: string
  error: string
  since: string
}

export interface StorageHealth {
  down(job: string, storage: string, error: string): void
  /** A run of `job` succeeded: its storages answered. */
  upAll(job: string): void
  /** One storage of `job` answered (its listing). */
  up(job: string, storage: string): void
  list(): StorageDown[]
}

export function storageHealth(): StorageHealth {
  const down = new Map<string, StorageDown>()
  return {
    down(job, storage, error) {
      down.set(`${job}\0${storage}`, { job, storage, error, since: new Date().toISOString() })
    },
    up(job, storage) {
      down.delete(`${job}\0${storage}`)
    },
    upAll(job) {
      for (const [key, entry] of down) if (entry.job === job) down.delete(key)
    },
    list: () => [...down.values()],
  }
}

type Log = (level: 'info' | 'warn', message: string) => void

/** Sweeps every repository of the job in the background; the promise never rejects. */
export function sweepLeftovers(repository: JobRepository, log: Log, health: StorageHealth): Promise<void> {
  const job = repository.job
  return Promise.all(
    repository.repositories.map(async (storage) => {
      try {
        const removed = await storage.removeLeftovers()
        if (removed) log('warn', `storage "${storage.name}": removed ${removed} object(s) left by an unfinished run`)
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err)
        health.down(job, storage.name, message)
        log('warn', `storage "${storage.name}": down at start (cleaning leftovers failed: ${message}); marked down until a run succeeds`)
      }
    }),
  ).then(() => undefined)
}
