/**
 * @module plugin
 * `hostStoragePlugin(options)(config)`: files of `storage` collections go to the storage host through a
 * plugin-cloud-storage adapter, videos of `stream` collections to the streaming host (TUS from the
 * browser, authorised by tus-auth; encoding callbacks on the webhook). The fields are added even when
 * `disabled`, so the database schema never depends on the switch.
 */
import { cloudStoragePlugin } from '@payloadcms/plugin-cloud-storage'
import type { CollectionOptions } from '@payloadcms/plugin-cloud-storage/types'
import type { CollectionConfig, Config, Endpoint } from 'payload'

import { storageAdapter } from './adapter/storageAdapter.js'
import { applyAdmin } from './admin/applyAdmin.js'
import { streamAdapter } from './adapter/streamAdapter.js'
import { rememberOperation } from './adapter/uploadTracker.js'
import { sweepOrphanUploads } from './cleanup/sweepOrphanUploads.js'
import { sweepOrphanVideos } from './cleanup/sweepOrphanVideos.js'
import type { PluginContext } from './context.js'
import { playbackEndpoint } from './endpoints/playback.js'
import { storageUploadEndpoint } from './endpoints/storageUpload.js'
import { tusAuthEndpoint } from './endpoints/tusAuth.js'
import { webhookEndpoint } from './endpoints/webhook.js'
import { HostDataField } from './fields/hostDataField.js'
import { bindVideoTokenHook } from './hooks/bindVideoToken.js'
import { purgeCdnUrlsHooks } from './hooks/purgeCdnUrls.js'
import { singleUseReceipts } from './hooks/singleUseReceipts.js'
import { verifyUploadReferenceHook } from './hooks/verifyUploadReference.js'
import { resolveOptions } from './options/resolveOptions.js'
import { coreHasUploadInstructions } from './payload/compat.js'
import { STORAGE_UPLOAD_PATH } from './constants.js'
import type { HostStoragePluginOptions } from './types.js'

const CLIENT_PATH = '@hosted-media/plugin-storage/client'

/**
 * Marker in the server-only `config.custom`: the plugin applied a second time (twice in `plugins`, or a
 * preset that already includes it) returns the config untouched instead of doubling its hooks,
 * providers, `onInit` and plugin-cloud-storage's wiring (the official adapters guard the same way).
 */
const APPLIED = 'hostStoragePluginApplied'

/** Adds an endpoint unless one with the same method and path exists (the plugin applied twice). */
function addEndpoint(endpoints: Endpoint[], endpoint: Endpoint): void {
  if (!endpoints.some((e) => e.path === endpoint.path && e.method === endpoint.method)) endpoints.push(endpoint)
}

/**
 * The storage plugin.
 *
 * @example
 * ```ts
 * plugins: [hostStoragePlugin({
 *   collections: { media: 'storage', videos: 'stream' },
 *   storage: { zoneName: 'my-zone', accessKey: process.env.STORAGE_KEY!, cdnUrl: 'https://my-zone.b-cdn.net', clientUploads: true },
 *   stream: { libraryId: 123, apiKey: process.env.STREAM_KEY!, cdnUrl: 'https://vz-abc.b-cdn.net', tus: true, webhook: { secret: process.env.STREAM_RO_KEY! } },
 * })]
 * ```
 */
export const hostStoragePlugin =
  (pluginOptions: HostStoragePluginOptions) =>
  (incomingConfig: Config): Config => {
    if ((incomingConfig.custom as Record<string, unknown> | undefined)?.[APPLIED]) return incomingConfig
    const options = resolveOptions(pluginOptions)
    const ctx: PluginContext = { options }

    // Schema first: `hostData` on stream collections, whatever `disabled` says.
    const collections = (incomingConfig.collections ?? []).map((collection): CollectionConfig => {
      const target = options.collections.get(collection.slug)
      if (!target) return collection
      if (!collection.upload) throw new Error(`storage-host plugin: collection "${collection.slug}" is not an upload collection`)
      if (target.target !== 'stream') return collection
      const upload = typeof collection.upload === 'object' ? collection.upload : {}
      if (upload.mimeTypes?.length) target.mimeTypes = upload.mimeTypes
      const hasHostData = collection.fields.some((f) => 'name' in f && f.name === 'hostData')
      const tusField =
        !options.disabled && options.stream?.tus
          ? { clientProps: { collectionSlug: collection.slug, tusEndpoint: options.stream.tusEndpoint }, path: `${CLIENT_PATH}#TusUploadField` }
          : undefined
      return {
        ...collection,
        fields: hasHostData ? collection.fields : [...collection.fields, HostDataField({ tusField })],
        // The bytes never reach the CMS, so Payload's own type check (which reads the whole file) cannot
        // run: the plugin enforces `mimeTypes` in tus-auth and in the bind hook instead (README).
        upload: { ...upload, mimeTypes: options.disabled ? upload.mimeTypes : undefined },
      }
    })
    let config: Config = { ...incomingConfig, collections, custom: { ...incomingConfig.custom, [APPLIED]: true } }
    const cloudCollections: Record<string, CollectionOptions> = {}
    for (const target of options.collections.values()) {
      const adapter = target.target === 'storage' ? storageAdapter(options.storage!, target) : streamAdapter(options.stream!)
      const publicUrls = target.target === 'storage' && options.storage?.publicUrls
      // A 4.x core has no `_objectKey`: a client upload's folder is kept in `prefix`, so the field must exist.
      const prefix = target.prefix || (coreHasUploadInstructions && target.target === 'storage' ? '' : undefined)
      cloudCollections[target.slug] = { adapter, disableLocalStorage: true, prefix, ...(publicUrls ? { disablePayloadAccessControl: true } : {}) }
    }
    // Disabled: plugin-cloud-storage still inserts its fields (`url`, `prefix`, `_objectKey`), nothing else.
    if (options.disabled) return cloudStoragePlugin({ alwaysInsertFields: true, collections: cloudCollections, enabled: false })(config)

    // Hooks of stream collections; the playback endpoint on each of them.
    config.collections = config.collections!.map((collection) => {
      const target = options.collections.get(collection.slug)
      if (!target || target.target !== 'stream' || !options.stream) return collection
      const endpoints = collection.endpoints === false ? false : [...(collection.endpoints ?? [])]
      if (endpoints) addEndpoint(endpoints, playbackEndpoint(options.stream, collection.slug))
      return {
        ...collection,
        endpoints,
        hooks: {
          ...collection.hooks,
          beforeChange: [...(collection.hooks?.beforeChange ?? []), bindVideoTokenHook(ctx, options.stream, target)],
        },
      }
    })

    // Endpoints.
    const endpoints = [...(config.endpoints ?? [])]
    if (options.stream?.tus) addEndpoint(endpoints, tusAuthEndpoint(ctx, options.stream))
    if (options.stream?.webhook) addEndpoint(endpoints, webhookEndpoint(ctx, options.stream, options.stream.webhook.secret))
    if (options.storage?.clientUploads) addEndpoint(endpoints, storageUploadEndpoint(ctx, options.storage))
    config.endpoints = endpoints

    // Admin components: upload handlers (providers) and the TUS field on `hostData.stream.videoToken`.
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
    config.admin = { ...config.admin, components: { ...config.admin?.components, providers } }

    // Orphan sweeps: client uploads on the storage host, abandoned TUS videos on the streaming host.
    const uploadSweepEvery = options.storage?.clientUploads?.sweepInterval ?? 0
    const videoSweepEvery = options.stream?.sweepUnboundVideos?.interval ?? 0
    const previousOnInit = config.onInit
    config.onInit = async (payload) => {
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
    }

    // Storage adapters through plugin-cloud-storage (it wires the upload/delete hooks and handlers).
    config = cloudStoragePlugin({ collections: cloudCollections })(config)
    // Receipts are verified first (4.x: by the plugin), then spent: one document per receipt.
    const receipts = singleUseReceipts(ctx)
    // CDN purge of replaced and deleted storage files, after plugin-cloud-storage wrote or deleted them.
    const purge = options.storage?.purge ? options.storage : undefined
    config.collections = config.collections!.map((collection) => {
      const target = options.collections.get(collection.slug)
      if (!purge || target?.target !== 'storage') return collection
      const hooks = purgeCdnUrlsHooks(purge, target)
      return {
        ...collection,
        hooks: {
          ...collection.hooks,
          afterChange: [...(collection.hooks?.afterChange ?? []), hooks.afterChange],
          afterDelete: [...(collection.hooks?.afterDelete ?? []), hooks.afterDelete],
        },
      }
    })
    config.collections = config.collections!.map((collection) =>
      options.collections.has(collection.slug)
        ? {
            ...collection,
            hooks: {
              ...collection.hooks,
              afterError: [...(collection.hooks?.afterError ?? []), receipts.afterError as never],
              afterOperation: [...(collection.hooks?.afterOperation ?? []), receipts.afterOperation as never],
              beforeOperation: [
                rememberOperation as never,
                verifyUploadReferenceHook as never,
                receipts.beforeOperation as never,
                ...(collection.hooks?.beforeOperation ?? []),
              ],
            },
          }
        : collection,
    )
    return applyAdmin(config, options)
  }
