/**
 * @module sources/postgresql/pgDumpArgs
 * The pg_dump command line and environment for a `postgresql` source. The password travels in
 * `PGPASSWORD` only: a command line is visible to every local user (`ps`), an environment is not.
 */
import type { PostgresqlSourceConfig } from '../../config/types.js'

export interface PgDumpInvocation {
  command: string
  args: string[]
  env: NodeJS.ProcessEnv
}

export function pgDumpArgs(config: PostgresqlSourceConfig, baseEnv: NodeJS.ProcessEnv = process.env): PgDumpInvocation {
  // `--no-password`: never wait for a prompt on a terminal that a daemon does not have.
  const args = ['--format=custom', '--no-password', `--dbname=${config.database}`]
  if (config.host) args.push(`--host=${config.host}`)
  if (config.port !== undefined) args.push(`--port=${config.port}`)
  if (config.user) args.push(`--username=${config.user}`)
  for (const table of config.excludeTables ?? []) args.push(`--exclude-table=${table}`)
  args.push(...(config.params ?? []))
  const env: NodeJS.ProcessEnv = { ...baseEnv }
  delete env.PGPASSWORD
  if (config.password !== undefined) env.PGPASSWORD = config.password
  return { command: config.pgDump ?? 'pg_dump', args, env }
}
