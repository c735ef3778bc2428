/**
 * @module sources/postgresql/pgDumpArgs
 * The pg_dump command line and environment for a `postgresql` source. The password travels in
 * `PGPASSWORD` only: a command line is visible to every local user (`ps`), an environment is not. A
 * password inside a URI or key/value `database` is taken out of it first (and wins over `password`, as
 * it would in libpq).
 */
import type { PostgresqlSourceConfig } from './schema.js'
import { splitPassword } from './connectionString.js'

export interface PgDumpInvocation {
  command: string
  args: string[]
  env: NodeJS.ProcessEnv
}

/**
 * `snapshot`: a snapshot exported by a transaction still open (`pg_export_snapshot()`), for pg_dump to read.
 * `compressedDownstream`: the job compresses or deduplicates what the source writes (`SourceContext`), so
 * `dumpCompression: auto` leaves pg_dump's own compression off.
 */
export function pgDumpArgs(
  config: PostgresqlSourceConfig,
  baseEnv: NodeJS.ProcessEnv = process.env,
  snapshot?: string,
  compressedDownstream = false,
): PgDumpInvocation {
  // `--no-password`: never wait for a prompt on a terminal that a daemon does not have.
  const connection = splitPassword(config.database)
  const args = ['--format=custom', '--no-password', `--dbname=${connection.database}`]
  // Before `params`: a `--compress`/`-Z` there comes later on the command line and wins.
  if (uncompressedDump(config, compressedDownstream)) args.push('--compress=0')
  if (config.host) args.push(`--host=${config.host}`)
  if (config.port !== undefined) args.push(`--port=${config.port}`)
  if (config.user) args.push(`--username=${config.user}`)
  for (const table of config.excludeTables ?? []) args.push(`--exclude-table=${table}`)
  if (snapshot) args.push(`--snapshot=${snapshot}`)
  args.push(...(config.params ?? []))
  const env: NodeJS.ProcessEnv = { ...baseEnv }
  delete env.PGPASSWORD
  const password = connection.password ?? config.password
  if (password !== undefined) env.PGPASSWORD = password
  return { command: config.pgDump ?? 'pg_dump', args, env }
}

/** Whether the dump is written with `--compress=0` (`dumpCompression`, README "Dump forms"). */
export function uncompressedDump(config: Pick<PostgresqlSourceConfig, 'dumpCompression'>, compressedDownstream: boolean): boolean {
  const form = config.dumpCompression ?? 'auto'
  return form === 'none' || (form === 'auto' && compressedDownstream)
}
