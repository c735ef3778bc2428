/**
 * @module config/restoreConfig
 * The top-level `restore` key: the folders a restore from the API may write into (`roots`) and the
 * databases a database source's dump may be restored into (`databases`, by a name the API uses; the
 * connection keys are those of the matching source kind, declared in its folder, secrets as `env:VAR`).
 * Both empty by default: nothing can be restored from the API until the config names a place (and
 * `server.permissions.allowRestore` is on).
 */
import { z } from 'zod'
import { sourceFactories } from '../sources/all.js'
import type { RestoreTargetBase } from '../sources/types.js'

/** Every target schema the registered kinds restore into, once per `type` (a family shares its schemas). */
function targetSchemas(): [z.ZodObject, ...z.ZodObject[]] {
  const byType = new Map<string, z.ZodObject>()
  for (const factory of sourceFactories) for (const [type, schema] of Object.entries(factory.restore?.into?.targets ?? {})) byType.set(type, schema)
  const [first, ...rest] = byType.values()
  if (!first) throw new Error('no source kind declares a restore.databases target')
  return [first, ...rest]
}

/**
 * One `restore.databases` entry: the connection keys of the database kind its `type` names. The cast:
 * zod types a union built at run time as plain records; every member has `type` as a string literal.
 */
export const restoreDatabaseSchema = z.discriminatedUnion('type', targetSchemas()) as unknown as z.ZodType<RestoreDatabaseConfig>

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

/** One entry of `restore.databases`: its kind's keys are read by that kind only (`SourceFactory.restore.into`). */
export type RestoreDatabaseConfig = RestoreTargetBase & Record<string, unknown>

/** The `restore` key after parsing. */
export type RestoreConfig = z.output<typeof restoreConfigSchema>
