/**
 * @module cli/storageHostBin
 * The plugin's commands on Payload 3, through its CLI extension point (`config.bin`, added by the plugin):
 *
 *   payload storage-host check
 *   payload storage-host migrate --collection <slug> [--from local|s3 --bucket <name>] [--dry-run]
 *
 * Payload's CLI loads the app's config (so the options are the app's own), calls `script(config)`, then
 * exits 0 whatever happened: this ends the process itself, with exit code 1 on a failure.
 */
import { parseArgs } from 'node:util'

import { getPayload, type Payload, type SanitizedConfig } from 'payload'

import { runCheck, runMigrate, UsageError } from './commands.js'

export const usage = `Usage:
  payload storage-host check
      Tries every zone and library of the plugin's options against the host and says what is wrong.
  payload storage-host migrate --collection <slug> [--from local] [--dry-run]
  payload storage-host migrate --collection <slug> --from s3 --bucket <name> [--endpoint <url>] [--region <r>] [--dry-run]
      Moves a storage collection's existing files (and image sizes) from its staticDir, or from the bucket
      of @payloadcms/storage-s3 (credentials from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY or a profile),
      onto its zone, then records each document's folder. Run it again after a failure or a kill: what is
      there is skipped.`

const out = (line: string) => process.stdout.write(`${line}\n`)

function migrateArgs(args: string[]) {
  try {
    const text = { type: 'string' } as const
    const options = { bucket: text, collection: text, 'dry-run': { type: 'boolean' }, endpoint: text, from: text, region: text } as const
    const { values } = parseArgs({ args, options, strict: true })
    return { ...values, dryRun: values['dry-run'] }
  } catch (err) {
    throw new UsageError((err as Error).message)
  }
}

/** Payload's CLI calls this with the app's config; `process.argv` holds `storage-host <command> ...`. */
export async function script(config: SanitizedConfig): Promise<void> {
  const [command, ...rest] = process.argv.slice(process.argv.indexOf('storage-host') + 1)
  let payload: Payload | undefined
  let code = 1
  try {
    if (command === 'check') code = await runCheck(config, out)
    else if (command === 'migrate')
      code = await runMigrate(config, migrateArgs(rest), async () => (payload = await getPayload({ config, disableOnInit: true })), out)
    else throw new UsageError(command ? `unknown command "${command}"` : 'which command?')
  } catch (err) {
    // Upstream errors name the operation and a status, never a key (errors.ts).
    process.stderr.write(`storage-host: ${(err as Error).message}\n${err instanceof UsageError ? `\n${usage}\n` : ''}`)
  } finally {
    await payload?.destroy()
  }
  process.exit(code)
}
