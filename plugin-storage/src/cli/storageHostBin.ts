/**
 * @module cli/storageHostBin
 * The plugin's commands, through Payload's own CLI extension point (`config.bin`, added by the plugin):
 *
 *   payload storage-host check
 *   payload storage-host migrate --collection <slug> [--from local] [--dry-run]
 *
 * Payload's CLI loads the app's config (so the options are the app's own), calls `script(config)`, then
 * exits 0 whatever happened: a failed command sets the exit code 1 itself and exits.
 */
import { parseArgs } from 'node:util'

import { getPayload, type SanitizedConfig } from 'payload'

import { optionsOf } from './pluginOptions.js'
import { checkSetup } from './checkSetup.js'
import { migrateFiles } from './migrateFiles.js'

export const usage = `Usage:
  payload storage-host check
      Tries every zone and library of the plugin's options against the host and says what is wrong.
  payload storage-host migrate --collection <slug> [--from local] [--dry-run]
      Moves a storage collection's existing files (and image sizes) from its staticDir onto its zone, then
      records each document's folder. Run it again after a failure or a kill: what is there is skipped.`

/** Prints `message` (and the usage) and ends the process with exit code 1. */
function refuse(message: string): never {
  process.stderr.write(`storage-host: ${message}\n\n${usage}\n`)
  process.exit(1)
}

async function check(config: SanitizedConfig): Promise<number> {
  const lines = await checkSetup({ apiRoute: config.routes?.api, options: optionsOf(config), serverURL: config.serverURL || undefined })
  for (const line of lines) process.stdout.write(`${line.level.padEnd(4)}  ${line.subject}: ${line.message}\n`)
  const failed = lines.filter((line) => line.level === 'fail').length
  process.stdout.write(failed ? `${failed} problem(s) found\n` : 'everything the plugin needs answers\n')
  return failed ? 1 : 0
}

async function migrate(config: SanitizedConfig, args: string[]): Promise<number> {
  let values: { collection?: string; from?: string; 'dry-run'?: boolean }
  try {
    ;({ values } = parseArgs({
      args,
      options: { collection: { type: 'string' }, 'dry-run': { type: 'boolean' }, from: { type: 'string' } },
      strict: true,
    }))
  } catch (err) {
    refuse((err as Error).message)
  }
  const slug = values.collection
  if (!slug) refuse('migrate needs --collection <slug>')
  if ((values.from ?? 'local') !== 'local') refuse(`--from ${values.from}: only "local" (the collection's staticDir) is supported`)
  const target = optionsOf(config).collections.get(slug)
  if (!target) refuse(`collection "${slug}" is not on the storage host: add it to the plugin's collections`)
  if (!target.storage) refuse(`collection "${slug}" is a stream collection: migrate moves a storage collection's files`)
  const upload = config.collections.find((c) => c.slug === slug)?.upload
  const staticDir = typeof upload === 'object' ? upload.staticDir : undefined
  if (!staticDir) refuse(`collection "${slug}" has no upload.staticDir: set it to the folder its files are in now`)
  // The schema is the CMS's (its dev push, or its migrations): no push from here, as `payload migrate` does
  // (a push beside a running CMS, or against a schema it made, can fail half-way). No onInit either: the
  // app's seeds and the plugin's sweeps are not this command's to run.
  process.env.PAYLOAD_MIGRATING = 'true'
  const payload = await getPayload({ config, disableOnInit: true })
  try {
    const result = await migrateFiles({
      collection: { ...target, storage: target.storage },
      dryRun: values['dry-run'] ?? false,
      log: (line) => process.stdout.write(`${line}\n`),
      payload,
      staticDir,
    })
    return result.failures.length ? 1 : 0
  } finally {
    await payload.destroy()
  }
}

/** Payload's CLI calls this with the app's config; `process.argv` holds `storage-host <command> ...`. */
export async function script(config: SanitizedConfig): Promise<void> {
  const args = process.argv.slice(process.argv.indexOf('storage-host') + 1)
  const [command, ...rest] = args
  let code: number
  try {
    if (command === 'check') code = await check(config)
    else if (command === 'migrate') code = await migrate(config, rest)
    else refuse(command ? `unknown command "${command}"` : 'which command?')
  } catch (err) {
    // Upstream errors name the operation and a status, never a key (errors.ts).
    process.stderr.write(`storage-host: ${(err as Error).message}\n`)
    code = 1
  }
  process.exit(code)
}
