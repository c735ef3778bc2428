/**
 * @module sources/hostStream
 * The `host-stream` source factory: a video library of the streaming host (originals, captions,
 * metadata) as a source, with an optional local copy (`syncPath`) kept between runs, and its restore
 * drill check (`drill.ts`).
 */
import type { SourceFactory } from '../types.js'
import { hostStreamDrill } from './drill.js'
import { hostStreamSourceSchema, type HostStreamSourceConfig } from './schema.js'
import { StreamLibrarySource } from './StreamLibrarySource.js'
import { hostStreamUploadRestore } from './uploadRestore.js'

export const hostStreamSource: SourceFactory<HostStreamSourceConfig> = {
  type: 'host-stream',
  configSchema: hostStreamSourceSchema,
  uploadRestore: hostStreamUploadRestore,
  secretKeys: ['apiKey', 'pullZoneTokenAuthKey'],
  pathKeys: ['syncPath'],
  drill: hostStreamDrill,
  create: (config, context) => new StreamLibrarySource(config, context),
}
