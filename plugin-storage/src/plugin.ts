/**
 * @module plugin
 * `storageHostPlugin(options)(config)`: files of `storage` collections go to the storage host through the
 * plugin's adapter, videos of `stream` collections to the streaming host (TUS from the
 * browser, authorised by tus-auth; encoding callbacks on the webhook). The fields are added even when
 * `disabled`, so the database schema never depends on the switch.
 */
import { dirname, extname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

import type { CollectionConfig, Config } from 'payload'

import { storageAdapter } from './adapter/storageAdapter.js'
import { streamAdapter } from './adapter/streamAdapter.js'
import { CLIENT_PATH } from './admin/clientPath.js'
import { withTranslations } from './admin/mergeTranslations.js'
import { pruneClaims, takeClaim } from './claims/claims.js'
import { withClaimsCollection } from './claims/claimsCollection.js'
import { sweepOrphanUploads } from './cleanup/sweepOrphanUploads.js'
import { sweepOrphanVideos } from './cleanup/sweepOrphanVideos.js'
import { addEndpoint } from './collections/addEndpoint.js'
import type { CollectionExtension } from './collections/collectionExtension.js'
import { withAdmin } from './collections/withAdmin.js'
import { withCdnPurge } from './collections/withCdnPurge.js'
import { payload4Commands } from './cli/payload4Commands.js'
import { withKeptOptions } from './cli/pluginOptions.js'
import { withHostData } from './collections/withHostData.js'
import { withSingleUseReceipts } from './collections/withSingleUseReceipts.js'
import { withVideoBinding } from './collections/withVideoBinding.js'
import { PLUGIN_SLUG, STORAGE_UPLOAD_PATH } from './constants.js'
import type { PluginContext } from './context.js'
import { storageUploadEndpoint } from './endpoints/storageUpload.js'
import { tusAuthEndpoint } from './endpoints/tusAuth.js'
import { webhookEndpoint } from './endpoints/webhook.js'
import type { ResolvedOptions } from './options/resolveOptions.js'
import { librariesOf, resolveOptions, zonesOf } from './options/resolveOptions.js'
import { withCollectionUploads } from './options/withCollectionUploads.js'
import { coreHasUploadInstructions, coreTakesCliCommands } from './payload/compat.js'
import { translations } from './translations/index.js'
import type { StorageHostPluginOptions } from './types.js'
import { withHostAdapter, withHostedFields } from './wiring/withHostAdapter.js'

/**
 * Marker in the server-only `config.custom`: the plugin applied a second time (twice in `plugins`, or a
 * preset that already includes it) returns the config untouched instead of doubling its hooks,
 * providers, `onInit` and upload wiring (the official adapters guard the same way).
 */
const APPLIED = 'storageHostPluginApplied'

/**
 * The upload wiring of each targeted collection: its adapter, its folder, and whether its files are public
 * on the CDN. A disabled plugin adds the same fields and nothing that acts.
 */
function withUploads(config: Config, options: ResolvedOptions): Config {
  const collections = (config.collections ?? []).map((collection) => {
    const target = options.collections.get(collection.slug)
    if (!target) return collection
    if (options.disabled) return withHostedFields(collection, target.prefix)
    const adapter = target.storage ? storageAdapter(target.storage, target) : streamAdapter(target.stream!)
    // Bound URLs cannot be made without the reader's request: the admin thumbnail then goes through the
    // file route (admin/adminThumbnails.ts), which must serve public files too.
    const publicFiles = target.storage?.publicUrls && !target.storage.tokenAuth?.bindToAddress
    return withHostAdapter(collection, { adapter, prefix: target.prefix, publicFiles })
  })
  return { ...config, collections }
}

/**
 * The concerns of an enabled plugin, in the order they extend a collection: schema, video binding, CDN
 * purge, single-use receipts, admin (the last one hides the internal storage fields).
 */
function enabledExtensions(ctx: PluginContext, config: Config): CollectionExtension[] {
  const { options } = ctx
  return [withHostData(options), withVideoBinding(ctx), withCdnPurge(), withSingleUseReceipts(ctx), withAdmin({ apiRoute: config.routes?.api ?? '/api' })]
}

/** One pass over the collections: each targeted one goes through every extension, the others stay as they are. */
function extendCollections(config: Config, original: readonly CollectionConfig[], options: ResolvedOptions, extensions: CollectionExtension[]): Config {
  const originals = new Map(original.map((c) => [c.slug, c]))
  const collections = (config.collections ?? []).map((collection) => {
    const target = options.collections.get(collection.slug)
    const declared = originals.get(collection.slug)
    if (!target || !declared) return collection
    return extensions.reduce((extended, extend) => extend({ collection: extended, original: declared, target }), collection)
  })
  return { ...config, collections }
}

/**
 * The plugin's own endpoints, each once whatever the number of zones and libraries: tus-auth (some
 * library has `tus`), the webhook (some library has a secret; callbacks are routed by `VideoLibraryId`),
 * client uploads (some zone has `clientUploads`). Each handler reads the target of the collection asked.
 */
function withEndpoints(config: Config, ctx: PluginContext): Config {
  const libraries = librariesOf(ctx.options)
  let endpoints = config.endpoints ?? []
  if (libraries.some((l) => l.tus)) endpoints = addEndpoint(endpoints, tusAuthEndpoint(ctx))
  if (libraries.some((l) => l.webhook)) endpoints = addEndpoint(endpoints, webhookEndpoint(ctx))
  if (zonesOf(ctx.options).some((z) => z.clientUploads)) endpoints = addEndpoint(endpoints, storageUploadEndpoint(ctx))
  return { ...config, endpoints }
}

/** Admin providers: the upload handlers of client uploads and of TUS. */
function withUploadProviders(config: Config, options: ResolvedOptions): Config {
  const providers = [...(config.admin?.components?.providers ?? [])]
  for (const target of options.collections.values()) {
    // A core with upload instructions drives client uploads from its own admin (`useInAdmin`).
    if (target.storage?.clientUploads && !coreHasUploadInstructions) {
      providers.push({
        clientProps: { collectionSlug: target.slug, enabled: true, prefix: target.prefix || undefined, serverHandlerPath: STORAGE_UPLOAD_PATH },
        path: `${CLIENT_PATH}#StorageClientUploadHandler`,
      })
    }
    if (target.stream?.tus) {
      providers.push({ clientProps: { collectionSlug: target.slug }, path: `${CLIENT_PATH}#StreamUploadHandler` })
    }
  }
  return { ...config, admin: { ...config.admin, components: { ...config.admin?.components, providers } } }
}

/** How often expired claims (spent receipts, past sweeps) are removed from the database. */
const PRUNE_CLAIMS_EVERY_S = 3600

/**
 * Orphan sweeps on init, per zone (client uploads) and per library (abandoned TUS videos), at each one's
 * interval. Every CMS instance runs the timers; the first to claim an interval in the database sweeps it
 * (a claim lives 90 % of the interval, so the next interval's timer finds it expired), the others skip.
 */
function withOrphanSweeps(config: Config, options: ResolvedOptions): Config {
  const previousOnInit = config.onInit
  return {
    ...config,
    onInit: async (payload) => {
      if (previousOnInit) await previousOnInit(payload)
      const every = (seconds: number, claim: string, work: () => Promise<unknown>) => {
        if (seconds <= 0) return
        const run = async () => {
          if (await takeClaim(payload, claim, seconds * 900)) await work()
        }
        const timer = setInterval(() => {
          void run().catch((err: Error) => payload.logger.warn({ err: err.message, msg: `storage-host: ${claim} failed` }))
        }, seconds * 1000)
        timer.unref()
      }
      for (const zone of zonesOf(options)) {
        every(zone.clientUploads?.sweepInterval ?? 0, `orphan sweep of zone ${zone.zoneName}`, () => sweepOrphanUploads(payload, options, { zone }))
      }
      for (const library of librariesOf(options)) {
        every(library.sweepUnboundVideos?.interval ?? 0, `orphan sweep of library ${library.libraryId}`, () => sweepOrphanVideos(payload, options, { library }))
      }
      every(PRUNE_CLAIMS_EVERY_S, 'removal of expired claims', () => pruneClaims(payload))
    },
  }
}

/**
 * The commands: `payload storage-host check|migrate` on Payload 3 (cli/storageHostBin.ts, a `bin` script next
 * to this file in the sources, `.ts`, and in the build, `.js`), `payload storage-host:check|migrate` on 4.
 * The script's path is joined, not `new URL(..., import.meta.url)`, which a bundler would take for an asset
 * to copy into the admin's build.
 */
function withCommands(config: Config, options: ResolvedOptions): Config {
  if (!coreTakesCliCommands) {
    const here = fileURLToPath(import.meta.url)
    const scriptPath = join(dirname(here), 'cli', `storageHostBin${extname(here)}`)
    const bin = [...(config.bin ?? []).filter((b) => b.key !== PLUGIN_SLUG), { key: PLUGIN_SLUG, scriptPath }]
    return withKeptOptions({ ...config, bin }, options)
  }
  // Payload 4 (`storage-host:check`): its `cli` key is not in the 3.x typings; an app's `cli: false` is kept.
  const { cli } = config as { cli?: false | { commands?: Record<string, unknown> } }
  const commands = cli === false ? {} : { cli: { ...cli, commands: { ...cli?.commands, ...payload4Commands } } }
  return withKeptOptions({ ...config, ...commands }, options)
}

/**
 * The storage plugin.
 *
 * @example
 * ```ts
 * plugins: [storageHostPlugin({
 *   collections: { media: 'storage', videos: 'stream' },
 *   storage: { zoneName: 'my-zone', accessKey: process.env.STORAGE_KEY!, cdnUrl: 'https://my-zone.b-cdn.net', clientUploads: true },
 *   stream: { libraryId: 123, apiKey: process.env.STREAM_KEY!, cdnUrl: 'https://vz-abc.b-cdn.net', tus: true, webhook: { secret: process.env.STREAM_RO_KEY! } },
 * })]
 * ```
 */
export const storageHostPlugin =
  (pluginOptions: StorageHostPluginOptions) =>
  (incomingConfig: Config): Config => {
    if ((incomingConfig.custom as Record<string, unknown> | undefined)?.[APPLIED]) return incomingConfig
    const declared = incomingConfig.collections ?? []
    const options = withCollectionUploads(resolveOptions(pluginOptions), declared)
    const ctx: PluginContext = { options }
    // The claims collection is in the schema whether or not the plugin is disabled, like its fields.
    const marked: Config = withClaimsCollection(withCommands({ ...incomingConfig, custom: { ...incomingConfig.custom, [APPLIED]: true } }, options))

    // Disabled: the same fields (`url`, `prefix`, `_objectKey`, `hostData`) as when enabled; nothing else.
    if (options.disabled) return extendCollections(withUploads(marked, options), declared, options, [withHostData(options)])
    // The upload/delete hooks and file handlers first; the plugin's own extensions then place their
    // items around them (collections/collectionExtension.ts, afterOriginal).
    let config = withUploads(marked, options)
    config = extendCollections(config, declared, options, enabledExtensions(ctx, config))
    config = withEndpoints(config, ctx)
    config = withUploadProviders(config, options)
    config = withOrphanSweeps(config, options)
    return withTranslations(config, translations)
  }

/** @deprecated The plugin's name is "storage host": use {@link storageHostPlugin}. Kept so existing configs keep working. */
export const hostStoragePlugin = storageHostPlugin
