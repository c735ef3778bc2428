/**
 * @module wiring/withHostAdapter
 * Wires one adapter into one upload collection with what the running core offers, in place of
 * `@payloadcms/plugin-cloud-storage` (whose last 4.x build pins an older Payload 4 and does not load on
 * the newer ones; README, "Payload 3 and 4"): the hosted-upload fields, the write/delete hooks, the file
 * handler in `upload.handlers`, local storage off, and the client-upload capability each core reads
 * (3.x `requiresClientUploadReceipt`, 4.x `uploadInstructions`).
 */
import type { CollectionConfig } from 'payload'

import { coreHasUploadInstructions } from '../payload/compat.js'
import type { HostAdapter, ServeArgs } from './hostAdapter.js'
import { sanitizePrefix } from '../keys/objectKeys.js'
import { hostedUploadFields } from './uploadFields.js'
import { uploadHooks } from './uploadHooks.js'

export interface HostedCollection {
  adapter: HostAdapter
  /** The collection's folder on the host (`prefix` option). */
  prefix: string
  /** Files are public on the CDN: the file route serves only the core's read-back of client uploads. */
  publicFiles?: boolean
}

/** Safe server-side fetches of the CMS's own file URLs during development (the core's crop/resize of a stored image), as plugin-cloud-storage 3.90 allowed. */
function skipSafeFetch(upload: Record<string, unknown>): unknown {
  const own = upload.skipSafeFetch
  if (own === true) return true
  const dev = process.env.NODE_ENV !== 'production'
  if (Array.isArray(own)) {
    const hasLocalhost = own.some((entry: Record<string, unknown>) => Object.keys(entry).length === 1 && entry.hostname === 'localhost')
    return [...own, ...(dev && !hasLocalhost ? [{ hostname: 'localhost' }] : [])]
  }
  return dev ? [{ hostname: 'localhost' }] : false
}

/** Only the schema (a disabled plugin): the same fields, nothing that acts. */
export function withHostedFields(collection: CollectionConfig, prefix: string): CollectionConfig {
  return { ...collection, fields: hostedUploadFields(collection, sanitizePrefix(prefix)) }
}

/** The collection with the adapter wired in. */
export function withHostAdapter(collection: CollectionConfig, hosted: HostedCollection): CollectionConfig {
  const { adapter } = hosted
  const prefix = sanitizePrefix(hosted.prefix)
  const upload = typeof collection.upload === 'object' ? collection.upload : {}
  const hooks = uploadHooks(adapter, collection, prefix)
  const serve = (req: Parameters<HostAdapter['staticHandler']>[0], args: ServeArgs) => adapter.staticHandler(req, args)
  // Public files are read from the CDN; the core still reads a client upload back through the handler.
  const handler = hosted.publicFiles
    ? (req: Parameters<HostAdapter['staticHandler']>[0], args: ServeArgs) =>
        'clientUploadContext' in args.params || 'uploadReference' in args.params ? serve(req, args) : undefined
    : serve
  return {
    ...collection,
    fields: hostedUploadFields(collection, prefix, adapter),
    hooks: {
      ...collection.hooks,
      afterChange: [...(collection.hooks?.afterChange ?? []), hooks.afterChange],
      afterDelete: [...(collection.hooks?.afterDelete ?? []), hooks.afterDelete],
      afterError: [...(collection.hooks?.afterError ?? []), hooks.afterError],
      beforeChange: [...(collection.hooks?.beforeChange ?? []), hooks.beforeChange],
    },
    upload: {
      ...upload,
      adapter: adapter.name,
      disableLocalStorage: true,
      handlers: [...(Array.isArray(upload.handlers) ? upload.handlers : []), handler as NonNullable<typeof upload.handlers>[number]],
      skipSafeFetch: skipSafeFetch(upload as Record<string, unknown>) as typeof upload.skipSafeFetch,
      // 3.x: the core verifies a client upload's receipt before the adapter reads it back. 4.x: the core
      // asks `uploadInstructions` from `POST /api/upload-instructions` (the plugin verifies its receipts).
      ...(coreHasUploadInstructions
        ? adapter.uploadInstructions
          ? { uploadInstructions: adapter.uploadInstructions }
          : {}
        : { requiresClientUploadReceipt: true }),
    } as typeof upload,
  }
}
