/**
 * @module sources/all
 * Every source type the daemon knows, by the config's `type`. Adding a source: one file exporting a
 * `SourceFactory` (its config type is its schema's output), one entry in `registered` here, and its test.
 * A database kind also declares its `restore` (`DatabaseRestore` in `types.ts`). The config's `SourceConfig`
 * union, the `restore.databases` targets and every restore path are derived from this list, so nothing else changes.
 */
import { hostSource } from './host/index.js'
import { hostStreamSource } from './hostStream/index.js'
import { localSource } from './local/index.js'
import { mongodbSource } from './mongodb/index.js'
import { mariadbSource, mysqlSource } from './mysql/index.js'
import { postgresqlSource } from './postgresql/index.js'
import { redisSource } from './redis/index.js'
import { s3Source } from './s3/index.js'
import { sqliteSource } from './sqlite/index.js'
import type { Source, SourceContext, SourceFactory } from './types.js'

const registered = [
  localSource,
  sqliteSource,
  postgresqlSource,
  mongodbSource,
  mysqlSource,
  mariadbSource,
  redisSource,
  s3Source,
  hostSource,
  hostStreamSource,
] as const

export const sourceFactories: readonly SourceFactory<any>[] = registered

/** One `jobs[].sources[]` entry after parsing: the config type of whichever factory its `type` names. */
export type SourceConfig = (typeof registered)[number] extends infer F ? (F extends SourceFactory<infer C> ? C : never) : never

export function sourceFactory(type: string): SourceFactory | undefined {
  return sourceFactories.find((factory) => factory.type === type)
}

export function createSource(config: SourceConfig, context: SourceContext): Source {
  const factory = sourceFactory(config.type)
  if (!factory) throw new Error(`unknown source type "${config.type}"`)
  return factory.create(config, context)
}
