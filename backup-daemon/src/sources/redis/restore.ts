/**
 * @module sources/redis/restore
 * How a `redis` source is restored (`DatabaseRestore`): a file source's (`path`) `dump.rdb` goes back to
 * that file (`restoreRedis`, for a stopped server). A live server cannot load an RDB: such a source is not
 * restorable by the daemon, only by hand. `restore.databases` has no Redis target.
 */
import type { DatabaseRestore } from '../types.js'
import { restoreRedis } from './restoreRedis.js'
import type { RedisSourceConfig } from './schema.js'

export const redisRestore: DatabaseRestore<RedisSourceConfig> = {
  restorable: (config) => Boolean(config.path),
  restorableWhen: 'with a path',
  async restore(entry, config, { overwrite, signal }) {
    // A running server cannot load an RDB; only a file source (`path`) goes back in place.
    if (!config.path)
      throw new Error(`a live redis source is restored by hand: stop the server, restore ${config.name}/dump.rdb with --to into its dir, start it`)
    await restoreRedis(entry, config.path, { overwrite, signal })
    return config.path
  },
}
