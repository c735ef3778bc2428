/**
 * @module sources/mysql/restore
 * How `mysql` and `mariadb` sources are restored (`DatabaseRestore`, one for the family): the SQL dump
 * is fed to the `mariadb`/`mysql` client (`restoreMysql`), a single-database dump confined to its target.
 * Either kind's dump goes into a `restore.databases` entry of either type.
 */
import { z } from 'zod'
import type { DatabaseRestore } from '../types.js'
import { restoreMysql } from './restoreMysql.js'
import type { MysqlFamilyConfig } from './schema.js'

const mysqlTarget = <T extends string>(type: T) =>
  z.strictObject({
    type: z.literal(type),
    database: z.string().min(1),
    host: z.string().min(1).default('127.0.0.1'),
    socket: z.string().min(1).optional(),
    port: z.int().min(1).max(65_535).default(3306),
    username: z.string().min(1).optional(),
    password: z.string().optional(),
  })

/** Both kinds' targets, keyed by their `type` (the same objects in both declarations). */
const targets = { mysql: mysqlTarget('mysql'), mariadb: mysqlTarget('mariadb') }

type MysqlTarget = z.output<(typeof targets)['mysql']>

/** The family's declaration, typed for one kind's config. */
export function mysqlFamilyRestore<C extends MysqlFamilyConfig>(): DatabaseRestore<C> {
  return {
    async restore(entry, config, { overwrite, signal }) {
      const { database, host, socket, port, username, password } = config
      await restoreMysql(entry, { database, host, socket, port, username, password }, { overwrite, signal })
      return database ? `database ${database}` : 'all databases of the dump'
    },
    into: {
      targets,
      retarget(config, target) {
        const { host, socket, port, username, password, database } = target as MysqlTarget
        return { ...config, host, socket, port, username, password, database, allDatabases: false }
      },
      targetLabel: (target) => (target as MysqlTarget).database,
    },
  }
}
