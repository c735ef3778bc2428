/**
 * The whole system as a user runs it, on the dev-app's default database (an SQLite file in its data
 * folder): the scenario of `support/devAppScenario.ts`, which the PostgreSQL file runs as well.
 */
import { sqliteDatabase } from './support/devAppDatabases.js'
import { describeDevAppScenario } from './support/devAppScenario.js'

describeDevAppScenario(sqliteDatabase())
