/**
 * @module sources/mysql/schema
 * The config entry of the `mysql` and `mariadb` sources (the original service's keys, with its
 * defaults) and the types derived from it. Both kinds share every key; they differ in the dump tool.
 */
import { z } from 'zod'
import { sourceName } from '../support/sourceName.js'

/** `extraParams`: `key: value` becomes `--key=value`, `key: ''` the bare flag `--key`. */
export const extraParamsSchema = z
  .record(
    z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, 'a dump option name without the leading "--"'),
    z.union([z.string(), z.number(), z.boolean()]).transform(String),
  )
  .default({})

function mysqlFamilySchema<T extends 'mysql' | 'mariadb'>(type: T) {
  return z
    .strictObject({
      type: z.literal(type),
      name: sourceName,
      /** TCP host; unused when `socket` is set. */
      host: z.string().min(1).default('127.0.0.1'),
      /** Unix socket path; wins over `host`/`port`. */
      socket: z.string().min(1).optional(),
      port: z.int().min(1).max(65_535).default(3306),
      username: z.string().min(1).optional(),
      /** Given to the dump tool as `MYSQL_PWD` in its environment, never on the command line. */
      password: z.string().optional(),
      /** The database to dump; or `allDatabases`. */
      database: z.string().min(1).optional(),
      allDatabases: z.boolean().default(false),
      /** Only these tables of `database` (all when empty); ignored with `allDatabases`, as in the original. */
      tables: z.array(z.string().min(1)).default([]),
      /** Tables of `database` left out (`--ignore-table=<database>.<table>`); ignored with `allDatabases`. */
      excludeTables: z.array(z.string().min(1)).default([]),
      extraParams: extraParamsSchema,
      /** `--single-transaction`: a consistent InnoDB snapshot without locking writers (ours; the original leaves it to `extraParams`). */
      singleTransaction: z.boolean().default(true),
    })
    .refine((c) => Boolean(c.database) !== c.allDatabases, { message: 'set either database or allDatabases: true', path: ['database'] })
}

export const mysqlSourceSchema = mysqlFamilySchema('mysql')
export const mariadbSourceSchema = mysqlFamilySchema('mariadb')

export type MysqlSourceConfig = z.output<typeof mysqlSourceSchema>
export type MariadbSourceConfig = z.output<typeof mariadbSourceSchema>
/** Either kind: everything but the dump tool is the same. */
export type MysqlFamilyConfig = MysqlSourceConfig | MariadbSourceConfig
