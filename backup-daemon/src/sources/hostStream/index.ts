/**
 * @module sources/hostStream
 * The `host-stream` source factory: a video library of the streaming host (originals, captions,
 * metadata) as a source, with an optional local copy (`syncPath`) kept between runs.
 */
import type { SourceFactory } from '../types.js'
import { hostStreamSourceSchema, type HostStreamSourceConfig } from './schema.js'
import { StreamLibrarySource } from './StreamLibrarySource.js'
import { hostStreamUploadRestore } from './uploadRestore.js'

export const hostStreamSource: SourceFactory<HostStreamSourceConfig> = {
  type: 'host-stream',
  configSchema: hostStreamSourceSchema,
  uploadRestore: hostStreamUploadRestore,
  secretKeys: ['apiKey', 'pullZoneTokenAuthKey'],
  pathKeys: ['syncPath'],
  create: (config, context) => new StreamLibrarySource(config, context),
}
