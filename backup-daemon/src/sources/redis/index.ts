/**
 * @module sources/redis
 * The `redis` source factory: a live RDB snapshot (`SYNC`, as `redis-cli --rdb`) or a copy of an RDB
 * file. Restored by putting `dump.rdb` where a stopped server loads it (`restore.ts`).
 */
import type { SourceFactory } from '../types.js'
import { redisDrill } from './drill.js'
import { RedisSource } from './RedisSource.js'
import { redisRestore } from './restore.js'
import { redisSourceSchema, type RedisSourceConfig } from './schema.js'

export const redisSource: SourceFactory<RedisSourceConfig> = {
  type: 'redis',
  configSchema: redisSourceSchema,
  secretKeys: ['password'],
  pathKeys: ['socket', 'path'],
  dumps: true,
  restore: redisRestore,
  drill: redisDrill,
  create: (config, context) => new RedisSource(config, context),
}
