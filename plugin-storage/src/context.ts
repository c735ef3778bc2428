/**
 * @module context
 * What every concern of the plugin receives: the resolved options and the upstream configs derived
 * from them (small typed objects, so the upstream clients never see the whole option tree).
 */
import type { ResolvedOptions, ResolvedStorage, ResolvedStream } from './options/resolveOptions.js'
import type { StorageApiConfig } from './upstream/storageApi.js'
import type { StreamApiConfig } from './upstream/streamApi.js'

export interface PluginContext {
  options: ResolvedOptions
}

export function storageApiConfig(storage: ResolvedStorage): StorageApiConfig {
  return { accessKey: storage.accessKey, endpoint: storage.endpoint, zoneName: storage.zoneName }
}

export function streamApiConfig(stream: ResolvedStream): StreamApiConfig {
  return { apiBase: stream.apiBase, apiKey: stream.apiKey, libraryId: stream.libraryId }
}
