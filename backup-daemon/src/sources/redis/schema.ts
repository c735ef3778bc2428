/**
 * @module sources/redis/schema
 * The config entry of the `redis` source (the original service's keys and defaults) and its type:
 * a live server (`host`/`port` or `socket`, ACL `username`, `password`) or `path` to an RDB file.
 */
import { z } from 'zod'
import { sourceName } from '../support/sourceName.js'

export const redisSourceSchema = z.strictObject({
  type: z.literal('redis'),
  name: sourceName,
  /** TCP host; unused when `socket` or `path` is set. */
  host: z.string().min(1).default('127.0.0.1'),
  /** Unix socket path; wins over `host`/`port`. */
  socket: z.string().min(1).optional(),
  port: z.int().min(1).max(65_535).default(6379),
  /** ACL user (Redis 6+); the `default` user when unset. */
  username: z.string().min(1).optional(),
  /** Sent with `AUTH` over the connection only (the original passes it in `REDISCLI_AUTH`). */
  password: z.string().optional(),
  /** An RDB file to copy instead of asking a live server (wins over the connection keys). */
  path: z.string().min(1).optional(),
})

export type RedisSourceConfig = z.output<typeof redisSourceSchema>
