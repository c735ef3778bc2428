/**
 * @module sources/host
 * The `host` source factory (the original's `bunny` source): a storage zone, or a folder of it, as
 * a source, with an optional local copy (`syncPath`) kept between runs.
 */
import type { SourceFactory } from '../types.js'
import { HostSource } from './HostSource.js'
import { hostSourceSchema, type HostSourceConfig } from './schema.js'

export const hostSource: SourceFactory<HostSourceConfig> = {
  type: 'host',
  configSchema: hostSourceSchema,
  secretKeys: ['accessKey', 'pullZoneTokenAuthKey'],
  pathKeys: ['syncPath'],
  create: (config, context) => new HostSource(config, context),
}
