/**
 * @module collections/withVideoBinding
 * Stream collections: the hook that binds an uploaded video to its document (`hostData.stream.videoToken`)
 * and the playback endpoint.
 */
import type { PluginContext } from '../context.js'
import { playbackEndpoint } from '../endpoints/playback.js'
import { bindVideoTokenHook } from '../hooks/bindVideoToken.js'
import { addEndpoint } from './addEndpoint.js'
import type { CollectionExtension } from './collectionExtension.js'
import { afterOriginal } from './collectionExtension.js'

export function withVideoBinding(ctx: PluginContext): CollectionExtension {
  return function videoBinding({ collection, original, target }) {
    const stream = target.stream
    if (!stream) return collection
    const endpoints = collection.endpoints === false ? false : addEndpoint(collection.endpoints ?? [], playbackEndpoint(stream, collection.slug))
    return {
      ...collection,
      endpoints,
      hooks: {
        ...collection.hooks,
        // Before the upload wiring's own `beforeChange` hook (it keeps the file and settles the folder).
        beforeChange: afterOriginal(collection.hooks?.beforeChange ?? [], original.hooks?.beforeChange, bindVideoTokenHook(ctx, stream, target)),
      },
    }
  }
}
