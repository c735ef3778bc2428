/**
 * @module archive/compressionThreads
 * How many threads compress an archive: `BACKUP_DAEMON_COMPRESS_THREADS` when set (a positive integer),
 * else one per core (`os.availableParallelism()`), as `pigz` and `zstd -T0` do. An environment variable
 * rather than a config key: it is a property of the machine, not of the job.
 */
import { availableParallelism } from 'node:os'

export function compressionThreads(env: NodeJS.ProcessEnv = process.env): number {
  const value = env.BACKUP_DAEMON_COMPRESS_THREADS
  if (value === undefined || value === '') return availableParallelism()
  const threads = Number(value)
  if (!Number.isInteger(threads) || threads < 1 || threads > 256)
    throw new Error(`BACKUP_DAEMON_COMPRESS_THREADS must be an integer from 1 to 256, not "${value}"`)
  return threads
}
