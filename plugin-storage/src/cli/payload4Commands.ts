/**
 * @module cli/payload4Commands
 * The plugin's commands on Payload 4, whose CLI takes schema-backed commands from `config.cli.commands`
 * (what its `defineCLICommand` builds: a description, an input schema, a handler answering the exit code):
 *
 *   payload storage-host:check
 *   payload storage-host:migrate --collection <slug> [--from local|s3 --bucket <name>] [--dry-run]
 *
 * Built here as plain objects: `payload/cli` does not exist on Payload 3, which loads this module too.
 * The input schema is a Standard Schema with its JSON Schema (what the CLI turns into options), written
 * by hand rather than pulling a schema library into the plugin for two small objects.
 */
import type { Payload, SanitizedConfig } from 'payload'

import { runCheck, runMigrate, UsageError, type MigrateArgs } from './commands.js'

type JsonSchema = { type: 'object'; properties: Record<string, Record<string, unknown>>; additionalProperties: false }
type Issue = { message: string; path?: string[] }

/** A Standard Schema (v1) of an object whose fields are checked against their JSON Schema `type`. */
function objectInput(schema: JsonSchema) {
  const validate = (value: unknown): { value: Record<string, unknown> } | { issues: Issue[] } => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return { issues: [{ message: 'expected an object' }] }
    const issues: Issue[] = []
    for (const [key, field] of Object.entries(value)) {
      const property = schema.properties[key]
      if (!property) issues.push({ message: `unknown input "${key}"`, path: [key] })
      else if (typeof field !== property.type) issues.push({ message: `expected a ${String(property.type)}`, path: [key] })
      else if (Array.isArray(property.enum) && !property.enum.includes(field)) issues.push({ message: `one of ${property.enum.join(', ')}`, path: [key] })
    }
    return issues.length ? { issues } : { value: value as Record<string, unknown> }
  }
  return { '~standard': { jsonSchema: { input: () => schema, output: () => schema }, validate, vendor: 'storage-host', version: 1 as const } }
}

interface HandlerContext {
  args: Record<string, unknown>
  getConfig: () => Promise<SanitizedConfig>
  getPayload: (options?: { disableOnInit?: boolean }) => Promise<Payload>
}

const out = (line: string) => process.stdout.write(`${line}\n`)

/** A command as Payload 4's `defineCLICommand` returns it. */
function command(description: string, schema: JsonSchema, examples: string[], handler: (context: HandlerContext) => Promise<number>) {
  const wrapped = async (context: HandlerContext) => {
    try {
      return await handler(context)
    } catch (err) {
      if (!(err instanceof UsageError)) throw err
      process.stderr.write(`storage-host: ${err.message}\n`)
      return 1
    }
  }
  return { allowUnknownOption: false, cli: {}, description, examples, handler: wrapped, helpGroup: 'Storage host', input: objectInput(schema), schema }
}

const checkSchema: JsonSchema = { additionalProperties: false, properties: {}, type: 'object' }
const migrateSchema: JsonSchema = {
  additionalProperties: false,
  properties: {
    collection: { description: 'The storage collection whose files move onto its zone', type: 'string' },
    dryRun: { description: 'Compare and list what would be uploaded; write nothing', type: 'boolean' },
    from: { description: 'Where the files are now: the staticDir, or the bucket of @payloadcms/storage-s3', enum: ['local', 's3'], type: 'string' },
    bucket: { description: '--from s3: the bucket (credentials from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY or a profile)', type: 'string' },
    endpoint: { description: '--from s3: an S3-compatible endpoint URL (not needed for AWS)', type: 'string' },
    region: { description: '--from s3: the region (default AWS_REGION, else us-east-1)', type: 'string' },
  },
  type: 'object',
}

/** `config.cli.commands` entries of the plugin. */
export const payload4Commands = {
  'storage-host:check': command(
    'Try every zone and library of the storage-host plugin against the host and say what is wrong.',
    checkSchema,
    ['payload storage-host:check'],
    async ({ getConfig }) => runCheck(await getConfig(), out),
  ),
  'storage-host:migrate': command(
    "Move a storage collection's files (and image sizes) from its staticDir or an S3 bucket onto its zone; run it again to finish after a failure.",
    migrateSchema,
    [
      'payload storage-host:migrate --collection images --dry-run',
      'payload storage-host:migrate --collection images',
      'payload storage-host:migrate --collection images --from s3 --bucket my-bucket',
    ],
    async ({ args, getConfig, getPayload }) => runMigrate(await getConfig(), args as MigrateArgs, () => getPayload({ disableOnInit: true }), out),
  ),
}
