/**
 * @module test/support/recordModules
 * A preload for child processes (`NODE_OPTIONS=--import=<this file's URL>`): registers
 * `recordModulesHooks.mjs`, which appends the URL of every module the process resolves through the ESM
 * loader to the file named by `$RECORD_MODULES_TO`, one per line. Tests read it to see which packages a
 * command loaded (a package imported from ESM is resolved here once, even if its own files use require()).
 * Plain JavaScript: the child runs the bundled CLI with plain node, without tsx.
 */
import { register } from 'node:module'

const file = process.env.RECORD_MODULES_TO
if (file) register('./recordModulesHooks.mjs', import.meta.url, { data: { file } })
