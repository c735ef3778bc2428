/**
 * @module config/restoreConfig
 * The top-level `restore` key: the folders a restore from the API may write into (`roots`) and the
 * databases a database source's dump may be restored into (`databases`, by a name the API uses; the
 * connection keys are those of the matching source kind, secrets as `env:VAR`). Both empty by default:
 * nothing can be restored from the API until the config names a place (and
 * `server.permissions.allowRestore` is on).
 */
import { z } from 'zod'

const postgresTarget = z.strictObject({
  type: z.literal('postgresql'),
  /** The database to restore into (it must exist); a URI / key-value string's password goes to PGPASSWORD. */
  database: z.string().min(1),
  host: z.string().min(1).optional(),
  port: z.int().min(1).max(65_535).optional(),
  user: z.string().min(1).optional(),
  password: z.string().optional(),
})

const mysqlTarget = (type: 'mysql' | 'mariadb') =>
  z.strictObject({
    type: z.literal(type),
    database: z.string().min(1),
    host: z.string().min(1).default('127.0.0.1'),
    socket: z.string().min(1).optional(),
    port: z.int().min(1).max(65_535).default(3306),
    username: z.string().min(1).optional(),
    password: z.string().optional(),
  })

const sqliteTarget = z.strictObject({
  type: z.literal('sqlite'),
  /** The database file written (an existing file is replaced only with `overwrite`). */
  path: z
    .string()
    .min(1)
    .refine((p) => p.startsWith('/'), 'an absolute path'),
})

export const restoreDatabaseSchema = z.discriminatedUnion('type', [postgresTarget, mysqlTarget('mysql'), mysqlTarget('mariadb'), sqliteTarget])

export const restoreConfigSchema = z.strictObject({
  /** Absolute folders a files restore may write below (checked with realpath, component by component). */
  roots: z
    .array(
      z
        .string()
        .min(1)
        .refine((p) => p.startsWith('/'), 'an absolute folder'),
    )
    .default([]),
  databases: z.record(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'letters, digits, ".", "_" and "-"'), restoreDatabaseSchema).default({}),
})

/** One entry of `restore.databases`. */
export type RestoreDatabaseConfig = z.output<typeof restoreDatabaseSchema>

/** The `restore` key after parsing. */
export type RestoreConfig = z.output<typeof restoreConfigSchema>
