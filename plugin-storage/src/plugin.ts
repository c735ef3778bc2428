/**
 * @module plugin
 * `storageHostPlugin(options)(config)`: files of `storage` collections go to the storage host through a
 * plugin-cloud-storage adapter, videos of `stream` collections to the streaming host (TUS from the
 * browser, authorised by tus-auth; encoding callbacks on the webhook). The fields are added even when
 * `disabled`, so the database schema never depends on the switch.
 */
import { cloudStoragePlugin } from '@payloadcms/plugin-cloud-storage'
import type { CollectionOptions } from '@payloadcms/plugin-cloud-storage/types'
import type { CollectionConfig, Config } from 'payload'

import { storageAdapter } from './adapter/storageAdapter.js'
import { streamAdapter } from './adapter/streamAdapter.js'
import { CLIENT_PATH } from './admin/clientPath.js'
import { withTranslations } from './admin/mergeTranslations.js'
import { sweepOrphanUploads } from './cleanup/sweepOrphanUploads.js'
import { sweepOrphanVideos } from './cleanup/sweepOrphanVideos.js'
import { addEndpoint } from './collections/addEndpoint.js'
import type { CollectionExtension } from './collections/collectionExtension.js'
import { withAdmin } from './collections/withAdmin.js'
import { withCdnPurge } from './collections/withCdnPurge.js'
import { withHostData } from './collections/withHostData.js'
import { withSingleUseReceipts } from './collections/withSingleUseReceipts.js'
import { withVideoBinding } from './collections/withVideoBinding.js'
import { STORAGE_UPLOAD_PATH } from './constants.js'
import type { PluginContext } from './context.js'
import { storageUploadEndpoint } from './endpoints/storageUpload.js'
import { tusAuthEndpoint } from './endpoints/tusAuth.js'
import { webhookEndpoint } from './endpoints/webhook.js'
import type { ResolvedOptions } from './options/resolveOptions.js'
import { resolveOptions } from './options/resolveOptions.js'
import { withCollectionUploads } from './options/withCollectionUploads.js'
import { coreHasUploadInstructions } from './payload/compat.js'
import { translations } from './translations/index.js'
import type { StorageHostPluginOptions } from './types.js'

/**
 * Marker in the server-only `config.custom`: the plugin applied a second time (twice in `plugins`, or a
 * preset that already includes it) returns the config untouched instead of doubling its hooks,
 * providers, `onInit` and plugin-cloud-storage's wiring (the official adapters guard the same way).
 */
const APPLIED = 'storageHostPluginApplied'

/** plugin-cloud-storage's options: one adapter per targeted collection. */
function cloudCollections(options: ResolvedOptions): Record<string, CollectionOptions> {
  const collections: Record<string, CollectionOptions> = {}
  for (const target of options.collections.values()) {
    const adapter = target.target === 'storage' ? storageAdapter(options.storage!, target) : streamAdapter(options.stream!)
    const publicUrls = target.target === 'storage' && options.storage?.publicUrls
    // A 4.x core has no `_objectKey`: a client upload's folder is kept in `prefix`, so the field must exist.
    const prefix = target.prefix || (coreHasUploadInstructions && target.target === 'storage' ? '' : undefined)
    collections[target.slug] = { adapter, disableLocalStorage: true, prefix, ...(publicUrls ? { disablePayloadAccessControl: true } : {}) }
  }
  return collections
}

/**
 * The concerns of an enabled plugin, in the order they extend a collection: schema, video binding, CDN
 * purge, single-use receipts, admin (the last one hides plugin-cloud-storage's internal fields).
 */
function enabledExtensions(ctx: PluginContext): CollectionExtension[] {
  const { options } = ctx
  return [
    withHostData(options),
    ...(options.stream ? [withVideoBinding(ctx, options.stream)] : []),
    ...(options.storage?.purge ? [withCdnPurge(options.storage)] : []),
    withSingleUseReceipts(ctx),
    withAdmin(options),
  ]
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

/** The plugin's own endpoints (tus-auth, webhook, client uploads), each once. */
function withEndpoints(config: Config, ctx: PluginContext): Config {
  const { storage, stream } = ctx.options
  let endpoints = config.endpoints ?? []
  if (stream?.tus) endpoints = addEndpoint(endpoints, tusAuthEndpoint(ctx, stream))
  if (stream?.webhook) endpoints = addEndpoint(endpoints, webhookEndpoint(ctx, stream, stream.webhook.secret))
  if (storage?.clientUploads) endpoints = addEndpoint(endpoints, storageUploadEndpoint(ctx, storage))
  return { ...config, endpoints }
}

/** Admin providers: the upload handlers of client uploads and of TUS. */
function withUploadProviders(config: Config, options: ResolvedOptions): Config {
  const providers = [...(config.admin?.components?.providers ?? [])]
  for (const target of options.collections.values()) {
    // A core with upload instructions drives client uploads from its own admin (`useInAdmin`).
    if (target.target === 'storage' && options.storage?.clientUploads && !coreHasUploadInstructions) {
      providers.push({
        clientProps: { collectionSlug: target.slug, enabled: true, prefix: target.prefix || undefined, serverHandlerPath: STORAGE_UPLOAD_PATH },
        path: `${CLIENT_PATH}#StorageClientUploadHandler`,
      })
    }
    if (target.target === 'stream' && options.stream?.tus) {
      providers.push({ clientProps: { collectionSlug: target.slug }, path: `${CLIENT_PATH}#StreamUploadHandler` })
    }
  }
  return { ...config, admin: { ...config.admin, components: { ...config.admin?.components, providers } } }
}

/** Orphan sweeps on init: client uploads on the storage host, abandoned TUS videos on the streaming host. */
function withOrphanSweeps(config: Config, options: ResolvedOptions): Config {
  const uploadSweepEvery = options.storage?.clientUploads?.sweepInterval ?? 0
  const videoSweepEvery = options.stream?.sweepUnboundVideos?.interval ?? 0
  const previousOnInit = config.onInit
  return {
    ...config,
    onInit: async (payload) => {
      if (previousOnInit) await previousOnInit(payload)
      const every = (seconds: number, sweep: () => Promise<unknown>) => {
        if (seconds <= 0) return
        const timer = setInterval(() => {
          void sweep().catch((err: Error) => payload.logger.warn({ err: err.message, msg: 'storage-host: orphan sweep failed' }))
        }, seconds * 1000)
        timer.unref()
      }
      every(uploadSweepEvery, () => sweepOrphanUploads(payload, options))
      every(videoSweepEvery, () => sweepOrphanVideos(payload, options))
    },
  }
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
    const marked: Config = { ...incomingConfig, custom: { ...incomingConfig.custom, [APPLIED]: true } }

    // Disabled: plugin-cloud-storage still inserts its fields (`url`, `prefix`, `_objectKey`), and the
    // schema (`hostData`) is the same as when enabled; nothing else.
    if (options.disabled) {
      const withFields = cloudStoragePlugin({ alwaysInsertFields: true, collections: cloudCollections(options), enabled: false })(marked)
      return extendCollections(withFields, declared, options, [withHostData(options)])
    }
    // plugin-cloud-storage wires the upload/delete hooks and file handlers first; the plugin's own
    // extensions then place their items around them (collections/collectionExtension.ts, afterOriginal).
    let config = cloudStoragePlugin({ collections: cloudCollections(options) })(marked)
    config = extendCollections(config, declared, options, enabledExtensions(ctx))
    config = withEndpoints(config, ctx)
    config = withUploadProviders(config, options)
    config = withOrphanSweeps(config, options)
    return withTranslations(config, translations)
  }

/** @deprecated The plugin's name is "storage host": use {@link storageHostPlugin}. Kept so existing configs keep working. */
export const hostStoragePlugin = storageHostPlugin
