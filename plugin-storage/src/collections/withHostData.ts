/**
 * @module collections/withHostData
 * Schema of stream collections: the `hostData` field (with the TUS upload field when TUS is on), and
 * `upload.mimeTypes` taken off Payload's hands. Applied whatever `disabled` says, so the database schema
 * never depends on the switch.
 */
import { CLIENT_PATH } from '../admin/clientPath.js'
import { HostDataField } from '../fields/hostDataField.js'
import type { ResolvedOptions } from '../options/resolveOptions.js'
import { streamUrls } from '../stream/streamUrls.js'
import type { CollectionExtension } from './collectionExtension.js'
import { afterOriginal } from './collectionExtension.js'

export function withHostData(options: ResolvedOptions): CollectionExtension {
  return function hostData({ collection, original, target }) {
    if (target.target !== 'stream') return collection
    const upload = typeof collection.upload === 'object' ? collection.upload : {}
    const hasHostData = collection.fields.some((f) => 'name' in f && f.name === 'hostData')
    const stream = target.stream
    const tusField =
      !options.disabled && stream?.tus
        ? { clientProps: { collectionSlug: collection.slug, tusEndpoint: stream.tusEndpoint }, path: `${CLIENT_PATH}#TusUploadField` }
        : undefined
    return {
      ...collection,
      fields: hasHostData
        ? collection.fields
        : afterOriginal(collection.fields, original.fields, HostDataField({ tusField, urls: stream && ((videoId) => streamUrls(stream, videoId)) })),
      // The bytes never reach the CMS, so Payload's own type check (which reads the whole file) cannot
      // run: the plugin enforces `mimeTypes` in tus-auth and in the bind hook instead (README).
      upload: { ...upload, mimeTypes: options.disabled ? upload.mimeTypes : undefined },
    }
  }
}
