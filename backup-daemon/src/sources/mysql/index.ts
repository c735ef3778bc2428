/**
 * @module sources/mysql
 * The `mysql` and `mariadb` source factories (one implementation: `mariadb` prefers `mariadb-dump`,
 * `mysql` prefers `mysqldump`, each falling back to the other). Restorable with the `mariadb`/`mysql`
 * client (`restore.ts`).
 */
import type { SourceFactory } from '../types.js'
import { mysqlDrill } from './drill.js'
import { MysqlSource } from './MysqlSource.js'
import { mysqlFamilyRestore } from './restore.js'
import { mariadbSourceSchema, mysqlSourceSchema, type MariadbSourceConfig, type MysqlSourceConfig } from './schema.js'

export const mysqlSource: SourceFactory<MysqlSourceConfig> = {
  type: 'mysql',
  configSchema: mysqlSourceSchema,
  secretKeys: ['password'],
  pathKeys: ['socket'],
  dumps: true,
  restore: mysqlFamilyRestore(),
  drill: mysqlDrill,
  create: (config, context) => new MysqlSource(config, context),
}

export const mariadbSource: SourceFactory<MariadbSourceConfig> = {
  type: 'mariadb',
  configSchema: mariadbSourceSchema,
  secretKeys: ['password'],
  pathKeys: ['socket'],
  dumps: true,
  restore: mysqlFamilyRestore(),
  drill: mysqlDrill,
  create: (config, context) => new MysqlSource(config, context),
}
