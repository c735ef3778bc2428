/**
 * @module cli/terminal/inProcessReporter
 * The reporter of `verifyIn`/`restoreIn` called in process (tests, tools): messages as plain lines
 * (errors on stderr), no progress, no colour.
 */
import { createReporter, type Reporter } from './Reporter.js'

export const inProcessReporter = (): Reporter => createReporter({ kind: 'plain', colour: false, progressIntervalMs: Infinity, columns: 80 })
