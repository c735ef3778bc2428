/**
 * The whole system as a user runs it, on PostgreSQL: a throwaway cluster (Debian's server binaries) on a
 * free port, `DATABASE_URI=postgres://… npm start` with a password that must be percent-encoded, then the
 * scenario of `support/devAppScenario.ts` (the SQLite file runs the same), its restore through
 * `pg_restore` into a fresh database.
 */
import { postgresDatabase } from './support/devAppDatabases.js'
import { describeDevAppScenario } from './support/devAppScenario.js'

describeDevAppScenario(postgresDatabase())
