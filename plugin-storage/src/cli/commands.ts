/**
 * @module cli/commands
 * What `check` and `migrate` do, whichever CLI runs them: Payload 3's `config.bin` script
 * (`storageHostBin.ts`: `payload storage-host check`) or Payload 4's schema-backed commands
 * (`payload4Commands.ts`: `payload storage-host:check`). Each answers its exit code.
 */
import type { Payload, SanitizedConfig } from 'payload'

import { checkSetup } from './checkSetup.js'
import { type FileSource, localSource, s3Source } from './fileSources.js'
import { migrateFiles } from './migrateFiles.js'
import { migrateVideos } from './migrateVideos.js'
import { optionsOf } from './pluginOptions.js'

/** Where the commands print (stdout). */
export type Out = (line: string) => void

export async function runCheck(config: SanitizedConfig, out: Out): Promise<number> {
  const lines = await checkSetup({ apiRoute: config.routes?.api, options: optionsOf(config), serverURL: config.serverURL || undefined })
  for (const line of lines) out(`${line.level.padEnd(4)}  ${line.subject}: ${line.message}`)
  const failed = lines.filter((line) => line.level === 'fail').length
  out(failed ? `${failed} problem(s) found` : 'everything the plugin needs answers')
  return failed ? 1 : 0
}

/** A command's input refused: the message says what to pass. */
export class UsageError extends Error {
  override name = 'UsageError'
}

export interface MigrateArgs {
  collection?: string
  from?: string
  dryRun?: boolean
  /** `--from s3`: the bucket, and an S3-compatible endpoint and region when not AWS's defaults. */
  bucket?: string
  endpoint?: string
  region?: string
}

/** Where the files are now, from the arguments (`--from local` reads the collection's `staticDir`). */
async function sourceOf(args: MigrateArgs, slug: string, config: SanitizedConfig): Promise<FileSource> {
  const from = args.from ?? 'local'
  if (from === 's3') {
    if (!args.bucket) throw new UsageError('--from s3 needs --bucket <name> (and --endpoint <url> for a service other than AWS)')
    if (args.endpoint && !/^https?:\/\//.test(args.endpoint)) throw new UsageError(`--endpoint ${args.endpoint}: an http(s) URL is expected`)
    return s3Source({ bucket: args.bucket, endpoint: args.endpoint, region: args.region })
  }
  if (from !== 'local') throw new UsageError(`--from ${from}: "local" (the collection's staticDir) or "s3" (the bucket of @payloadcms/storage-s3)`)
  const upload = config.collections.find((c) => c.slug === slug)?.upload
  const staticDir = typeof upload === 'object' ? upload.staticDir : undefined
  if (!staticDir) throw new UsageError(`collection "${slug}" has no upload.staticDir: set it to the folder its files are in now`)
  return localSource(staticDir)
}

/**
 * Checks the arguments against the config, then moves the files. `getPayload` starts the CMS without its
 * `onInit` (the app's seeds and the plugin's sweeps are not this command's to run).
 */
export async function runMigrate(config: SanitizedConfig, args: MigrateArgs, getPayload: () => Promise<Payload>, out: Out): Promise<number> {
  const slug = args.collection
  if (!slug) throw new UsageError('migrate needs --collection <slug>')
  const target = optionsOf(config).collections.get(slug)
  if (!target) throw new UsageError(`collection "${slug}" is not on the storage host: add it to the plugin's collections`)
  const source = await sourceOf(args, slug, config)
  // The schema is the CMS's (its dev push, or its migrations): no push from here, as `payload migrate` does
  // (a push beside a running CMS, or against a schema it made, can fail half-way).
  process.env.PAYLOAD_MIGRATING = 'true'
  try {
    const payload = await getPayload()
    const common = { dryRun: args.dryRun ?? false, log: out, payload, source }
    // A stream collection's files go into its video library; a storage collection's (with their sizes) onto its zone.
    const result = target.stream
      ? await migrateVideos({ ...common, collection: { ...target, stream: target.stream } })
      : await migrateFiles({ ...common, collection: { ...target, storage: target.storage! } })
    return result.failures.length ? 1 : 0
  } finally {
    await source.close()
  }
}
