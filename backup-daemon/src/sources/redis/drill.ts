/**
 * @module sources/redis/drill
 * How a restore drill proves a `redis` source's snapshot restores (`SourceDrill`): the restored
 * `dump.rdb` is copied into a folder of the drill's scratch space and loaded by a temporary `redis-server`
 * (`temporaryRedisServer`; whatever `databaseServer` says, a live server cannot load an RDB without
 * replacing its data), whose `INFO keyspace` must hold the keys per database counted from the RDB at
 * backup (`countRdbKeys`). A damaged or truncated RDB fails with redis-server's own load error.
 */
import { copyFile, mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { SourceDrill } from '../types.js'
import type { RedisSourceConfig } from './schema.js'
import { startTemporaryRedisServer } from './temporaryRedisServer.js'

/** What the source records at backup time: keys per database (`db0`, `db3`...), from the RDB. */
export type RedisRecord = { keys: Record<string, number> }

export const redisDrill: SourceDrill<RedisSourceConfig> = {
  async check({ config, files, recorded, scratch, log, signal }) {
    const entry = `${config.name}/dump.rdb`
    const file = files.find((f) => f.name === entry)
    if (!file) return { checked: entry, differences: [`${entry}: not in the snapshot`] }
    const expected = (recorded as RedisRecord | undefined)?.keys
    if (!expected) return { checked: entry, differences: [`${entry}: the snapshot's record holds no key counts for source "${config.name}"`] }
    const dir = join(scratch, 'server')
    await mkdir(dir, { recursive: true, mode: 0o700 })
    await copyFile(file.path, join(dir, 'dump.rdb'))
    let server
    try {
      server = await startTemporaryRedisServer(dir, 'dump.rdb', signal)
    } catch (err) {
      if (signal.aborted) throw signal.reason
      return { checked: entry, differences: [`${entry}: ${(err as Error).message}`] }
    }
    log('info', `loaded dump.rdb into a temporary redis-server on 127.0.0.1:${server.port}`)
    try {
      const found = await server.keyspace()
      const differences: string[] = []
      for (const db of new Set([...Object.keys(expected), ...Object.keys(found)])) {
        const want = expected[db] ?? 0
        const got = found[db] ?? 0
        if (want !== got) differences.push(`${entry}: ${db} has ${got} key(s), the backup recorded ${want}`)
      }
      const total = Object.values(found).reduce((a, b) => a + b, 0)
      return { checked: `${entry}: loaded by a temporary redis-server, ${total} key(s) in ${Object.keys(found).length} database(s)`, differences }
    } finally {
      await server.stop()
      log('info', 'stopped the temporary redis-server')
    }
  },
}
