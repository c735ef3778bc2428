/**
 * @module database/databaseAdapter
 * The Payload database adapter for `DATABASE_URI`. PostgreSQL and SQLite get their schema from Payload's
 * development push (on by default outside production): `src/start/seed.ts` runs in development mode
 * before `next start`, so a fresh database gets its tables on first start with no migration step.
 */
import type { Config } from 'payload'
import { mongooseAdapter } from '@payloadcms/db-mongodb'
import { postgresAdapter } from '@payloadcms/db-postgres'
import { sqliteAdapter } from '@payloadcms/db-sqlite'
import { databaseKind } from './databaseKind.js'

export function databaseAdapter(uri: string): NonNullable<Config['db']> {
  switch (databaseKind(uri)) {
    case 'mongodb':
      return mongooseAdapter({ url: uri })
    // A missing database is created by the adapter on first connect (the role needs CREATEDB).
    case 'postgres':
      return postgresAdapter({ pool: { connectionString: uri } })
    case 'sqlite':
      return sqliteAdapter({ client: { url: uri } })
  }
}
