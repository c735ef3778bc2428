/**
 * @module test/sources/support/postgresSource
 * A throwaway cluster's database (`postgresCluster`) as a `postgresql` source's config. Apart from
 * `postgresCluster.ts` because the repository's root test project compiles that file, and this one needs
 * the daemon's source types.
 */
import { join } from 'node:path'
import type { PostgresqlSourceConfig } from '../../../src/sources/postgresql/index.js'
import type { PostgresCluster } from './postgresCluster.js'

/** Database `database` of `pg` as a source named `name`: over TCP with the superuser's password, dumped by the cluster's own pg_dump. */
export function tcpSource(pg: PostgresCluster, database: string, name = 'pg'): PostgresqlSourceConfig {
  return {
    type: 'postgresql',
    name,
    database,
    host: '127.0.0.1',
    port: pg.port,
    user: pg.superuser,
    password: pg.password,
    pgDump: join(pg.bin, 'pg_dump'),
  }
}
